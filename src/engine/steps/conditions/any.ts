/** @module `any`: at least one nested condition holds (short-circuit); interests are the union of the children's. */
import { z } from 'zod';
import { stepSchema } from '../../definition/definition';
import { stepBaseShape } from '../../definition/step-schemas';
import { defineCondition } from '../step-types';

export const anyCondition = defineCondition({
  type: 'any',
  schema: z.strictObject({ type: z.literal('any'), ...stepBaseShape, conditions: z.array(stepSchema).min(1) }),
  evaluate: async (config, context) => {
    for (const condition of config.conditions) if (await context.evaluate(condition)) return true;
    return false;
  },
  children: (config) => config.conditions.map((step, index) => ({ step, path: ['conditions', index] })),
});
