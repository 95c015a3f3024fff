/**
 * @module `setContext`: sets literal `values`, then the results of `expressions` (all evaluated against
 * the context as it was before this action), then removes the `remove` keys. An expression that yields
 * nothing removes its key, as JSON has no `undefined`.
 */
import { z } from 'zod';
import { evaluateExpression } from '../expressions';
import { jsonObjectSchema, type JsonValue } from '../json';
import { expressionSchema, stepBaseShape } from '../step-schemas';
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
      set[key] = await evaluateExpression(expression, context.scope);
    }
    context.updateContext(set, config.remove);
  },
});
