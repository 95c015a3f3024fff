/** @module `triggerContentType`: true when the trigger's content type equals `contentType`. */
import { z } from 'zod';
import { stepBaseShape } from '../../definition/step-schemas';
import { defineCondition } from '../step-types';

export const triggerContentTypeCondition = defineCondition({
  type: 'triggerContentType',
  schema: z.strictObject({ type: z.literal('triggerContentType'), ...stepBaseShape, contentType: z.string().min(1).max(256) }),
  evaluate: (config, { scope }) => scope.trigger?.contentType === config.contentType,
});
