/** @module `triggerName`: true when the trigger's name equals `name`; adds `name` to the state's interests. */
import { z } from 'zod';
import { stepBaseShape } from '../../definition/step-schemas';
import { defineCondition } from '../step-types';

export const triggerNameCondition = defineCondition({
  type: 'triggerName',
  schema: z.strictObject({ type: z.literal('triggerName'), ...stepBaseShape, name: z.string().min(1).max(256) }),
  evaluate: (config, { scope }) => scope.trigger?.name === config.name,
  interests: (config) => [config.name],
});
