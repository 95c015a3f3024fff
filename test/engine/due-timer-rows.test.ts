/**
 * Due-timer rows of a state entry the instance has left are removed with the save that leaves it
 * (issue 22, group 9): before the fix 300 transitions of one instance left 301 rows pending, each to fire
 * later as a useless operation.
 */
import { Engine, type WorkflowDefinitionInput } from '../../src/engine';
import { InMemoryDueTimerIndex, createInMemoryPorts } from '../../src/testing';
import { FakeClock, recordingLogger, trigger } from './support';

/** Every state arms a timer a day out; `Flip` moves between them, so each move leaves an entry behind. */
const flipFlop: WorkflowDefinitionInput = {
  id: 'flip-flop',
  displayName: 'Flip flop',
  initialStateId: 'a',
  states: {
    a: {
      transitions: [
        { id: 'to-b', targetStateId: 'b', conditions: [{ type: 'triggerName', name: 'Flip' }] },
        { id: 'a-late', targetStateId: 'done', timer: { after: 'P1D' } },
      ],
    },
    b: {
      transitions: [
        { id: 'to-a', targetStateId: 'a', conditions: [{ type: 'triggerName', name: 'Flip' }] },
        { id: 'b-late', targetStateId: 'done', timer: { after: 'P1D' } },
      ],
    },
    done: {},
  },
};

describe('due-timer rows', () => {
  it("of a state entry left are removed: 300 transitions leave one row, the current entry's", async () => {
    const dueTimers = new InMemoryDueTimerIndex();
    const engine = new Engine({ ...createInMemoryPorts(), dueTimers }, { clock: new FakeClock(), logger: recordingLogger() }).withDelivery({
      trigger: async () => undefined,
      timer: async () => undefined,
    });
    await engine.createWorkflow(flipFlop);
    await engine.createInstance({ workflowId: 'flip-flop', instanceId: 'i1' });
    for (let index = 0; index < 300; index++) await engine.applyTrigger('i1', trigger('Flip', { id: `flip-${index}`, subjects: ['i1'] }));

    const pending = [];
    for await (const row of dueTimers.listDue(new Date('2100-01-01T00:00:00Z'))) pending.push(row);
    const instance = await engine.getInstance('i1');
    expect(pending.map((row) => [row.instanceId, row.stateEntry, row.transitionId])).toEqual([['i1', instance.stateEntry, 'a-late']]);
  });

  it('of a cancelled instance are removed', async () => {
    const dueTimers = new InMemoryDueTimerIndex();
    const engine = new Engine({ ...createInMemoryPorts(), dueTimers }, { clock: new FakeClock(), logger: recordingLogger() }).withDelivery({
      trigger: async () => undefined,
      timer: async () => undefined,
    });
    await engine.createWorkflow(flipFlop);
    await engine.createInstance({ workflowId: 'flip-flop', instanceId: 'i1' });
    await engine.cancel('i1');

    const pending = [];
    for await (const row of dueTimers.listDue(new Date('2100-01-01T00:00:00Z'))) pending.push(row);
    expect(pending).toEqual([]);
  });
});
