/** @module `expression`: a JSONata expression that must yield a boolean (anything else is a fault). */
import { z } from 'zod';
import { evaluateExpression } from '../../expressions/expressions';
import { expressionSchema, stepBaseShape } from '../../definition/step-schemas';
import { defineCondition } from '../step-types';

export const expressionCondition = defineCondition({
  type: 'expression',
  schema: z.strictObject({ type: z.literal('expression'), ...stepBaseShape, expression: expressionSchema }),
  evaluate: async (config, { scope, effects, note }) => {
    const value = await evaluateExpression(config.expression, scope, effects);
    note?.(`${config.expression} → ${value === undefined ? 'nothing' : JSON.stringify(value)}`);
    if (typeof value !== 'boolean') {
      throw new Error(`the expression "${config.expression}" yielded ${value === undefined ? 'nothing' : JSON.stringify(value)}, not a boolean`);
    }
    return value;
  },
});
