/** @module `not`: the nested condition does not hold; its interests are the nested one's. */
import { z } from 'zod';
import { stepSchema } from '../../definition/definition';
import { stepBaseShape } from '../../definition/step-schemas';
import { defineCondition } from '../step-types';

export const notCondition = defineCondition({
  type: 'not',
  schema: z.strictObject({ type: z.literal('not'), ...stepBaseShape, condition: stepSchema }),
  evaluate: async (config, context) => !(await context.evaluate(config.condition)),
  children: (config) => [{ step: config.condition, path: ['condition'] }],
});
