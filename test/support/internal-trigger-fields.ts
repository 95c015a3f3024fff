/**
 * What a client might try to smuggle into a trigger's body: each internal kind (the union's field and the
 * optional fields it replaced) and what the engine or the host sets on a trigger (where it came from, who
 * sent it, how deep in follow-up work it is). Every one is refused at the field, on both hosts
 * (test/host/internal-trigger-fields.test.ts, test/functions/internal-trigger-fields.azurite.test.ts).
 */
import type { WorkflowDefinitionInput } from '../../src/engine';

/** A timer transition a forged `timer` field would choose if it were believed, and an ordinary one. */
export const timedWorkflow = (id: string): WorkflowDefinitionInput => ({
  id,
  displayName: id,
  initialStateId: 'waiting',
  states: {
    waiting: {
      transitions: [
        { id: 'escalate', targetStateId: 'escalated', timer: { after: 'PT48H' } },
        { id: 'go', targetStateId: 'waiting', conditions: [{ type: 'triggerName', name: 'Go' }] },
      ],
    },
    escalated: {},
  },
});

/** Each field the engine keeps for itself, with a value of the shape it has inside the engine. */
export const internalTriggerFields: ReadonlyArray<readonly [field: string, value: unknown]> = [
  ['internal', { kind: 'timer', transitionId: 'escalate', stateEntry: 0 }],
  ['timer', { transitionId: 'escalate', stateEntry: 0 }],
  ['retry', { triggerId: 'earlier', attempt: 1 }],
  ['debounce', { triggerName: 'Go', triggerId: 'earlier' }],
  ['recipient', { instanceId: 'someone' }],
  ['capacityReoffer', { workflowId: 'w', stateId: 'escalated', key: 'k', trigger: { id: 'x', name: 'Go', subjects: ['someone'] } }],
  ['capacityWait', { triggerId: 'earlier', stateId: 'escalated', key: 'k' }],
  ['capacityRoom', { stateId: 'waiting' }],
  ['raisedBy', 'someone'],
  ['actor', { kind: 'system', id: 'engine' }],
  ['causalDepth', 0],
  ['causalBudget', 1],
  ['hops', 0],
];
