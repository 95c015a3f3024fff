/** @module `log`: a line through the host's logger, with the instance id and state. */
import { z } from 'zod';
import { renderTemplate } from '../expressions';
import { stepBaseShape, templateSchema } from '../step-schemas';
import { defineAction } from '../step-types';

export const logAction = defineAction({
  type: 'log',
  schema: z.strictObject({
    type: z.literal('log'),
    ...stepBaseShape,
    message: templateSchema.pipe(z.string().min(1).max(4096)),
    level: z.enum(['info', 'warn', 'error']).default('info'),
  }),
  execute: async (config, { scope, effects }) => {
    const message = (await renderTemplate(config.message, scope, 'empty', effects)) ?? '';
    effects.log[config.level](message, {
      instanceId: scope.instance.id,
      workflowId: scope.instance.workflowId,
      stateId: scope.instance.stateId,
      ...(scope.trigger ? { triggerId: scope.trigger.id } : {}),
    });
  },
});
