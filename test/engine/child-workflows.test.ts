/** Child workflows on in-memory ports: startInstance from the outbox, deterministic ids, Child* triggers to the parent. */
import { derivedChildId } from '../../src/engine/steps';
import { decideTrigger, validateDefinition } from '../../src/engine';
import { collectAll } from '../../src/testing';
import { instanceIn, testEffects, testEngine, trigger } from './support';

const parcel = {
  id: 'parcel',
  displayName: 'Parcel',
  initialStateId: 'packing',
  states: {
    packing: {
      transitions: [
        { id: 'ship', targetStateId: 'delivered', conditions: [{ type: 'triggerName', name: 'Shipped' }], actions: [{ type: 'setContext', values: { tracking: 'T1' } }] },
        { id: 'lose', targetStateId: 'lost', conditions: [{ type: 'triggerName', name: 'Lost' }] },
      ],
    },
    delivered: {},
    lost: { entryActions: [{ type: 'setContext', expressions: { x: '$error("lost in transit")' } }] },
  },
};

const order = {
  id: 'order',
  displayName: 'Order',
  initialStateId: 'new',
  states: {
    new: {
      transitions: [
        {
          id: 'split',
          targetStateId: 'fulfilling',
          conditions: [{ type: 'triggerName', name: 'Split' }],
          actions: [
            {
              type: 'startInstance',
              workflowId: 'parcel',
              instanceId: '{{instance.id}}-parcel-1',
              context: { expressions: { weight: 'trigger.parameters.w1' } },
              returnContextItems: ['tracking', 'weight'],
            },
            { type: 'startInstance', workflowId: 'parcel', instanceId: '{{instance.id}}-parcel-2', context: { values: { weight: 2 } } },
          ],
        },
      ],
    },
    fulfilling: {
      transitions: [
        // Both children done: the second ChildCompleted finds the first one counted.
        {
          id: 'allDone',
          targetStateId: 'done',
          conditions: [
            { type: 'triggerName', name: 'ChildCompleted' },
            { type: 'expression', expression: 'context.completed = 1' },
          ],
        },
        {
          id: 'oneDone',
          targetStateId: 'fulfilling',
          conditions: [{ type: 'triggerName', name: 'ChildCompleted' }],
          actions: [{ type: 'setContext', expressions: { completed: '$count(context.completed) = 0 ? 1 : context.completed + 1', firstChild: 'trigger.parameters' } }],
        },
        {
          id: 'childFailed',
          targetStateId: 'failed',
          conditions: [{ type: 'triggerName', name: 'ChildFaulted' }],
          actions: [{ type: 'setContext', expressions: { failedChild: 'trigger.parameters.childInstanceId' } }],
        },
      ],
    },
    done: {},
    failed: {},
  },
};

describe('child workflows', () => {
  it('starts two children after the save, and moves on when both complete', async () => {
    const { engine } = testEngine({ inProcess: true });
    await engine.createWorkflow(parcel);
    await engine.createWorkflow(order);
    await engine.createInstance({ workflowId: 'order', instanceId: 'o1' });
    await engine.applyTrigger('o1', { id: 'split-1', name: 'Split', subjects: ['o1'], parameters: { w1: 5 } });

    const children = await collectAll((page) => engine.listInstances({ parentId: 'o1' }, page));
    // Changed by issue 22: a child knows its parent's incarnation (an instance id used again is a new parent).
    const { incarnation } = await engine.getInstance('o1');
    expect(children.map((child) => [child.id, child.parent, child.context])).toEqual([
      ['o1-parcel-1', { instanceId: 'o1', incarnation, returnContextItems: ['tracking', 'weight'] }, { weight: 5 }],
      ['o1-parcel-2', { instanceId: 'o1', incarnation }, { weight: 2 }],
    ]);
    // A repeated delivery of the parent's trigger starts nobody again.
    await engine.applyTrigger('o1', { id: 'split-1', name: 'Split', subjects: ['o1'], parameters: { w1: 5 } });
    expect(await collectAll((page) => engine.listInstances({ parentId: 'o1' }, page))).toHaveLength(2);

    await engine.applyTrigger('o1-parcel-1', { id: 'ship-1', name: 'Shipped', subjects: ['o1-parcel-1'] });
    let parent = await engine.getInstance('o1');
    expect(parent.stateId).toBe('fulfilling');
    expect(parent.context).toEqual({
      completed: 1,
      firstChild: { childInstanceId: 'o1-parcel-1', workflowId: 'parcel', stateId: 'delivered', status: 'complete', context: { tracking: 'T1', weight: 5 } },
    });
    await engine.applyTrigger('o1-parcel-2', { id: 'ship-2', name: 'Shipped', subjects: ['o1-parcel-2'] });
    parent = await engine.getInstance('o1');
    expect([parent.stateId, parent.status]).toEqual(['done', 'complete']);
    const history = await collectAll((page) => engine.getHistory('o1', page));
    expect(history.map((entry) => entry.transitionId)).toEqual([null, 'split', 'oneDone', 'allDone']);
    expect(history[3]!.triggerId).toMatch(/^raised:/);
  });

  it('tells the parent when a child faults or is cancelled', async () => {
    const { engine } = testEngine({ inProcess: true });
    await engine.createWorkflow(parcel);
    await engine.createWorkflow(order);
    await engine.createInstance({ workflowId: 'order', instanceId: 'o2' });
    await engine.applyTrigger('o2', { id: 'split-2', name: 'Split', subjects: ['o2'], parameters: { w1: 1 } });
    await engine.applyTrigger('o2-parcel-2', { id: 'lose', name: 'Lost', subjects: ['o2-parcel-2'] });
    const parent = await engine.getInstance('o2');
    expect([parent.stateId, parent.context.failedChild]).toEqual(['failed', 'o2-parcel-2']);

    const cancelling = {
      ...order,
      id: 'cancelling',
      states: {
        ...order.states,
        fulfilling: {
          transitions: [
            { id: 'c', targetStateId: 'done', conditions: [{ type: 'triggerName', name: 'ChildCancelled' }], actions: [{ type: 'setContext', expressions: { status: 'trigger.parameters.status' } }] },
          ],
        },
      },
    };
    await engine.createWorkflow(cancelling);
    await engine.createInstance({ workflowId: 'cancelling', instanceId: 'o3' });
    await engine.applyTrigger('o3', { id: 'split-3', name: 'Split', subjects: ['o3'] });
    await engine.cancel('o3-parcel-1');
    expect((await engine.getInstance('o3')).context).toEqual({ status: 'cancelled' });
  });

  it('derives a child id from the parent, the cause and the action when none is given, the same on every decision', async () => {
    const definition = validateDefinition({
      id: 'p',
      displayName: 'P',
      initialStateId: 'a',
      states: {
        a: {
          transitions: [
            {
              id: 'go',
              targetStateId: 'b',
              actions: [
                { type: 'startInstance', workflowId: 'c' },
                { type: 'startInstance', workflowId: 'c' },
              ],
            },
          ],
        },
        b: {},
      },
    });
    const instance = instanceIn(definition, 'a');
    const t = trigger('Go');
    const first = await decideTrigger(definition, instance, t, testEffects(), testEffects().registry);
    const again = await decideTrigger(definition, instance, t, testEffects(), testEffects().registry);
    const other = await decideTrigger(definition, instance, trigger('Go'), testEffects(), testEffects().registry);
    const ids = (decision: typeof first) => decision.change!.outbox.flatMap((row) => (row.kind === 'startInstance' ? [row.payload.instanceId] : []));
    expect(ids(first)).toHaveLength(2);
    expect(new Set(ids(first)).size).toBe(2);
    expect(ids(again)).toEqual(ids(first));
    expect(ids(other).some((id) => ids(first).includes(id))).toBe(false);
    expect(ids(first)[0]).toMatch(/^i1\.child\.[0-9a-f]{16}$/);
    expect(derivedChildId('i1', `t.${t.id}`, 'action of transition "go" [0] (startInstance)', 0)).toBe(ids(first)[0]);
    expect(derivedChildId('x'.repeat(128), 'c', 'l', 0)).toHaveLength(128);
  });
});
