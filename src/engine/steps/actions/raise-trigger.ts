/**
 * @module `raiseTrigger`: a new trigger, rendered from `{{...}}` templates, saved with the instance
 * (outbox) and delivered by the relay after the save. Subjects whose placeholders yield nothing are left out; if none
 * remain the action fails (a trigger must name a subject).
 */
import { z } from 'zod';
import { renderJsonTemplates, renderTemplate, templatesIn } from '../../expressions/expressions';
import { jsonObjectSchema, type JsonObject } from '../../model/json';
import { stepBaseShape, templateSchema } from '../../definition/step-schemas';
import { defineAction } from '../step-types';
import { parseTemplate } from '../../expressions/expressions';
import { raisedTriggerSchema } from '../../model/trigger';
import { formatPath } from '../../model/validation';

const parametersSchema = jsonObjectSchema.superRefine((parameters, ctx) => {
  for (const { path, template } of templatesIn(parameters)) {
    try {
      parseTemplate(template);
    } catch (error) {
      ctx.addIssue({ code: 'custom', path, message: (error as Error).message });
    }
  }
});

export const raiseTriggerAction = defineAction({
  type: 'raiseTrigger',
  schema: z.strictObject({
    type: z.literal('raiseTrigger'),
    ...stepBaseShape,
    trigger: z.strictObject({
      name: templateSchema.pipe(z.string().min(1).max(256)),
      subjects: z
        .array(templateSchema.pipe(z.string().min(1).max(1024)))
        .min(1)
        .max(100),
      contentType: z.string().min(1).max(256).optional(),
      parameters: parametersSchema.optional(),
    }),
  }),
  execute: async (config, context) => {
    const { scope, effects } = context;
    const name = await renderTemplate(config.trigger.name, scope, 'empty', effects);
    if (!name) throw new Error(`the raised trigger's name "${config.trigger.name}" rendered empty`);
    const subjects: string[] = [];
    for (const template of config.trigger.subjects) {
      const subject = await renderTemplate(template, scope, 'undefined', effects);
      if (subject && !subjects.includes(subject)) subjects.push(subject);
    }
    if (subjects.length === 0) throw new Error(`the raised trigger "${name}" has no subjects: every subject template rendered empty`);
    const parameters = config.trigger.parameters ? ((await renderJsonTemplates(config.trigger.parameters, scope, effects)) as JsonObject) : undefined;
    const raised = {
      name,
      subjects,
      ...(config.trigger.contentType ? { contentType: config.trigger.contentType } : {}),
      ...(parameters ? { parameters } : {}),
    };
    // Checked now, as a fault of this action: a trigger the relay cannot deliver would stay in the outbox forever.
    const checked = raisedTriggerSchema.safeParse(raised);
    if (!checked.success) {
      throw new Error(`the raised trigger "${name}" is invalid: ${checked.error.issues.map((issue) => `${formatPath(issue.path)}: ${issue.message}`).join('; ')}`);
    }
    context.raiseTrigger(raised);
  },
});
