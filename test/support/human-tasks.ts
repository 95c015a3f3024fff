/** The approval workflow and actors the human-task tests share. */
import { Engine, type WorkflowDefinitionInput } from '../../src/engine';
import type { Actor } from '../../src/engine/model';
import { InMemoryTaskIndex, ManualClock, createInMemoryPorts } from '../../src/testing';
import { silentLogger } from '../../src/engine/steps';

export const person = (id: string, extra: Partial<Actor> = {}): Actor => ({ id, name: id.toUpperCase(), roles: [], groups: [], via: 'token', ...extra });
export const ann = person('ann', { groups: ['approvers'] });
export const bob = person('bob', { groups: ['approvers'] });
export const claire = person('claire'); // the claimant: in no group
export const mia = person('mia', { roles: ['manager'] });

export function approvalWorkflow(task: Record<string, unknown> = {}): WorkflowDefinitionInput {
  return {
    id: 'expenses',
    displayName: 'Expenses',
    initialStateId: 'review',
    calendars: { office: { timeZone: 'Europe/London', workingHours: [{ days: ['Mon', 'Tue', 'Wed', 'Thu', 'Fri'], from: '09:00', to: '17:00' }] } },
    subscriptions: [{ id: 'hooks', url: 'https://hooks.example.test/tasks', events: ['taskCreated', 'taskAssigned', 'taskClaimed', 'taskReminded', 'taskEscalated', 'taskCompleted', 'taskClosed'] }],
    states: {
      review: {
        task: {
          title: 'Approve {{context.amount}} for {{context.claimant}}',
          assignees: { groups: ['approvers'] },
          outcomes: [{ name: 'Approve' }, { name: 'Reject', parameters: { type: 'object', properties: { reason: { type: 'string', minLength: 3 } }, required: ['reason'] } }],
          due: { after: 'PT16H' },
          calendar: 'office',
          escalation: [
            { after: 'PT16H', action: 'remind' },
            { after: 'PT24H', action: 'escalate', assignees: { roles: ['manager'] } },
            { after: 'PT40H', action: 'decide', outcome: 'Reject' },
          ],
          fourEyes: 'context.claimant',
          ...task,
        },
        transitions: [
          { id: 'approve', targetStateId: 'approved', conditions: [{ type: 'triggerName', name: 'Approve' }] },
          { id: 'reject', targetStateId: 'rejected', conditions: [{ type: 'triggerName', name: 'Reject' }] },
          { id: 'withdraw', targetStateId: 'withdrawn', conditions: [{ type: 'triggerName', name: 'Withdraw' }] },
        ],
      },
      approved: {},
      rejected: {},
      withdrawn: {},
    },
  } as WorkflowDefinitionInput;
}

/** Monday 2026-11-30 09:00 in London (UTC in winter). */
export const MONDAY_NINE = '2026-11-30T09:00:00.000Z';

export async function taskEngine(task: Record<string, unknown> = {}) {
  const clock = new ManualClock(MONDAY_NINE);
  const ports = createInMemoryPorts();
  const engine = new Engine(ports, { clock, logger: silentLogger, newId: () => 'generated' });
  await engine.createWorkflow(approvalWorkflow(task));
  const create = (instanceId: string, claimant = 'claire') => engine.createInstance({ workflowId: 'expenses', instanceId, context: { amount: 120, claimant } });
  return { clock, ports, engine, create, index: ports.tasks as InMemoryTaskIndex };
}
