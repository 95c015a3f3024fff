/**
 * The semantic diff of two workflow versions: states added, removed and changed; within a state, transitions
 * by id (added, removed, and which of target, conditions, actions, timer changed) and its other parts; the
 * workflow's subscriptions and other parts; each change with the instances in the state it touches.
 */
import { diffWorkflowVersions } from '../../src/engine/analysis';
import { NotFoundError, type WorkflowDefinitionInput } from '../../src/engine';
import { definition, testEngine, trigger } from './support';

const v1: WorkflowDefinitionInput = {
  id: 'claim',
  displayName: 'Claim',
  initialStateId: 'draft',
  subscriptions: [{ id: 'audit', url: 'https://audit.example/hook' }],
  states: {
    draft: { transitions: [{ id: 'submit', targetStateId: 'review', conditions: [{ type: 'triggerName', name: 'Submit' }] }] },
    review: {
      entryActions: [{ type: 'setContext', values: { reviewing: true } }],
      transitions: [
        { id: 'approve', targetStateId: 'done', conditions: [{ type: 'triggerName', name: 'Approve' }] },
        { id: 'reject', targetStateId: 'rejected', conditions: [{ type: 'triggerName', name: 'Reject' }] },
        { id: 'remind', targetStateId: 'review', timer: { after: 'P1D' } },
      ],
    },
    rejected: {},
    done: {},
  },
};

const v2: WorkflowDefinitionInput = {
  ...v1,
  displayName: 'Claim (renamed, not a change)',
  subscriptions: [{ id: 'billing', url: 'https://billing.example/hook' }],
  states: {
    draft: v1.states.draft!,
    review: {
      transitions: [
        {
          id: 'approve',
          targetStateId: 'paying',
          conditions: [
            { type: 'triggerName', name: 'Approve' },
            { type: 'expression', expression: 'context.amount < 1000' },
          ],
        },
        { id: 'remind', targetStateId: 'review', timer: { after: 'P2D' } },
        { id: 'escalate', targetStateId: 'paying', conditions: [{ type: 'triggerName', name: 'Escalate' }] },
      ],
    },
    paying: { transitions: [{ id: 'paid', targetStateId: 'done', conditions: [{ type: 'triggerName', name: 'Paid' }] }] },
    done: {},
  },
};

describe('diffWorkflowVersions', () => {
  it('names each state added, removed or changed, and what in it', () => {
    expect(diffWorkflowVersions(definition(v1), definition(v2))).toEqual([
      {
        kind: 'stateChanged',
        stateId: 'review',
        details: [
          'transitions.approve.targetStateId changed',
          'transitions.approve.conditions changed',
          'transitions.remind.timer changed',
          'transitions.escalate added',
          'transitions.reject removed',
          'entryActions changed',
        ],
      },
      { kind: 'stateAdded', stateId: 'paying', details: ['transitions.paid added'] },
      { kind: 'stateRemoved', stateId: 'rejected', details: [] },
      { kind: 'workflowChanged', details: ['subscriptions.billing added', 'subscriptions.audit removed'] },
    ]);
  });

  it('is empty for the same definition, and sees a reordering of transitions', () => {
    expect(diffWorkflowVersions(definition(v1), definition(v1))).toEqual([]);
    const review = v1.states.review!;
    const reordered = { ...v1, states: { ...v1.states, review: { ...review, transitions: [...review.transitions!].reverse() } } };
    expect(diffWorkflowVersions(definition(v1), definition(reordered))).toEqual([{ kind: 'stateChanged', stateId: 'review', details: ['transitions reordered'] }]);
  });
});

describe('Engine.diffVersions', () => {
  it('gives each change the number of instances in the state it touches', async () => {
    const { engine } = testEngine();
    const first = await engine.createWorkflow(engine.validateWorkflow(v1));
    for (const id of ['a', 'b', 'c']) await engine.createInstance({ workflowId: 'claim', instanceId: id });
    for (const id of ['a', 'b']) await engine.applyTrigger(id, trigger('Submit', { subjects: [id] }));
    const second = await engine.addWorkflowVersion(v2, { ifMatch: first.etag });
    const { changes } = await engine.diffVersions('claim', 1, second.version);
    expect(changes.map(({ kind, stateId, instances }) => ({ kind, stateId, instances }))).toEqual([
      { kind: 'stateChanged', stateId: 'review', instances: 2 },
      { kind: 'stateAdded', stateId: 'paying', instances: 0 },
      { kind: 'stateRemoved', stateId: 'rejected', instances: 0 },
      { kind: 'workflowChanged', stateId: undefined, instances: 3 },
    ]);
    await expect(engine.diffVersions('claim', 1, 9)).rejects.toBeInstanceOf(NotFoundError);
  });
});
