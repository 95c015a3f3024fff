/**
 * @module `log`: a line through the host's logger, with the instance id and state, once the change is
 * saved. The rendered message is capped (MAX_LOG_MESSAGE_LENGTH): its placeholders can hold trigger data
 * of any size.
 */
import { z } from 'zod';
import { renderTemplate } from '../../expressions/expressions';
import { MAX_LOG_MESSAGE_LENGTH, capText } from '../../model/log-text';
import { stepBaseShape, templateSchema } from '../../definition/step-schemas';
import { defineAction } from '../step-types';

export const logAction = defineAction({
  type: 'log',
  schema: z.strictObject({
    type: z.literal('log'),
    ...stepBaseShape,
    message: templateSchema.pipe(z.string().min(1).max(4096)),
    level: z.enum(['info', 'warn', 'error']).default('info'),
  }),
  execute: async (config, { scope, effects, log }) => {
    const message = capText((await renderTemplate(config.message, scope, 'empty', effects)) ?? '', MAX_LOG_MESSAGE_LENGTH);
    // Emitted by the runtime after the save, so a decision re-made after a 412 logs once.
    log(config.level, message, {
      instanceId: scope.instance.id,
      workflowId: scope.instance.workflowId,
      stateId: scope.instance.stateId,
      ...(scope.trigger ? { triggerId: scope.trigger.id } : {}),
    });
  },
});
