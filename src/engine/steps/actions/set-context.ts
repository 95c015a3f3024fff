/**
 * @module `setContext`: sets literal `values`, then the results of `expressions` (all evaluated against
 * the context as it was before this action), then removes the `remove` keys. An expression that yields
 * nothing (a missing trigger parameter, say) leaves its key as it was: copying optional input must not
 * erase what is there. Removing is what `remove` is for.
 */
import { z } from 'zod';
import { evaluateExpression } from '../../expressions/expressions';
import { jsonObjectSchema, type JsonValue } from '../../model/json';
import { expressionSchema, stepBaseShape } from '../../definition/step-schemas';
import { defineAction } from '../step-types';

export const setContextAction = defineAction({
  type: 'setContext',
  schema: z.strictObject({
    type: z.literal('setContext'),
    ...stepBaseShape,
    values: jsonObjectSchema.default({}),
    expressions: z.record(z.string().min(1), expressionSchema).default({}),
    remove: z.array(z.string().min(1)).default([]),
  }),
  execute: async (config, context) => {
    const set: Record<string, JsonValue | undefined> = { ...config.values };
    for (const [key, expression] of Object.entries(config.expressions)) {
      const value = await evaluateExpression(expression, context.scope, context.effects);
      if (value !== undefined) set[key] = value;
    }
    context.updateContext(set, config.remove);
  },
});
