/**
 * @module `startInstance`: starts a child workflow instance after the parent's change is saved (a
 * `startInstance` outbox row), with `parent: { instanceId }` on it. The child's id is the rendered
 * `instanceId` template, or, when omitted, derived from the parent, the cause of the change and the
 * action, so a retried delivery never starts two. When the child ends (complete, faulted, cancelled) the
 * parent gets `ChildCompleted`/`ChildFaulted`/`ChildCancelled` with the child's `returnContextItems`.
 */
import { z } from 'zod';
import { evaluateExpression, renderTemplate } from '../../expressions/expressions';
import { workflowIdSchema } from '../../definition/definition';
import { jsonObjectSchema, type JsonObject } from '../../model/json';
import { expressionSchema, stepBaseShape, templateSchema } from '../../definition/step-schemas';
import { defineAction } from '../step-types';
import { idSchema } from '../../model/trigger';
import { hashString, toTriggerId } from '../../model/trigger-ids';

/**
 * The id of a child started without one: the parent's id and a hash of the change's cause, the action's
 * place in the definition and its order in the change, and the parent's incarnation when it has one (so a
 * parent created again with the same id starts new children). The same delivery always gives the same id.
 */
export function derivedChildId(parentId: string, causeKey: string, location: string, index: number, incarnation?: string): string {
  const keyed = `${causeKey}\u0000${location}\u0000${index}`;
  return toTriggerId(`${parentId}.child.${hashString(incarnation === undefined ? keyed : `i.${incarnation}\u0000${keyed}`)}`);
}

export const startInstanceAction = defineAction({
  type: 'startInstance',
  schema: z.strictObject({
    type: z.literal('startInstance'),
    ...stepBaseShape,
    workflowId: workflowIdSchema,
    /** A `{{...}}` template; omitted: derived deterministically from the parent, the cause and the action. */
    instanceId: templateSchema.pipe(z.string().min(1).max(1024)).optional(),
    context: z
      .strictObject({
        values: jsonObjectSchema.default({}),
        expressions: z.record(z.string().min(1), expressionSchema).default({}),
      })
      .optional(),
    /** Context keys of the child that come back to the parent in its Child* trigger. */
    returnContextItems: z.array(z.string().min(1).max(256)).max(100).optional(),
  }),
  execute: async (config, context) => {
    let instanceId: string | undefined;
    if (config.instanceId !== undefined) {
      const rendered = await renderTemplate(config.instanceId, context.scope, 'empty', context.effects);
      const checked = idSchema.safeParse(rendered);
      if (!checked.success) throw new Error(`the child instance id "${rendered}" is invalid: ${checked.error.issues[0]?.message ?? 'invalid'}`);
      instanceId = checked.data;
    }
    const childContext: JsonObject = { ...(config.context?.values ?? {}) };
    for (const [key, expression] of Object.entries(config.context?.expressions ?? {})) {
      const value = await evaluateExpression(expression, context.scope, context.effects);
      if (value !== undefined) childContext[key] = value;
    }
    context.startInstance({
      workflowId: config.workflowId,
      ...(instanceId ? { instanceId } : {}),
      context: childContext,
      ...(config.returnContextItems ? { returnContextItems: config.returnContextItems } : {}),
    });
  },
});
