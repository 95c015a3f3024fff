/**
 * Triggers queued for room in a full state (`capacity` on a state: README, "Flow control") crossed with the
 * seams: the queued trigger is follow-up work of its own kind, kept whole on the state's flow row and
 * applied under its own id when an instance leaves the state. Can it be applied twice, lost to a crash
 * between the leaving save and its offer, or reach an instance created again with its id?
 *
 * In memory, on the manual clock.
 */
import { Engine, type Trigger, type WorkflowDefinitionInput } from '../../src/engine';
import { ManualClock, createInMemoryPorts } from '../../src/testing';
import { recordingLogger } from '../engine/support';

const orders: WorkflowDefinitionInput = {
  id: 'orders',
  displayName: 'Orders',
  initialStateId: 'open',
  states: {
    open: { transitions: [{ id: 'pick', targetStateId: 'picking', conditions: [{ type: 'triggerName', name: 'Pick' }] }] },
    picking: {
      capacity: { key: 'customer:{{context.customer}}', limit: 1 },
      transitions: [{ id: 'done', targetStateId: 'done', conditions: [{ type: 'triggerName', name: 'Done' }] }],
    },
    done: {},
  },
};

async function setup(ids: string[]) {
  const ports = createInMemoryPorts();
  const clock = new ManualClock('2026-11-26T10:00:00.000Z');
  let n = 0;
  const logger = recordingLogger();
  const engine = new Engine(ports, { clock, logger, newId: () => `gen-${++n}` });
  await engine.createWorkflow(orders);
  for (const id of ids) await engine.createInstance({ workflowId: 'orders', instanceId: id, context: { customer: '42' } });
  return { engine, ports, logger };
}

const sent = (name: string, instanceId: string, id = `${name}-${instanceId}`): Trigger => ({ id, name, subjects: [instanceId] });

describe('state capacity seams', () => {
  it('applied once × capacity-queued triggers: a queued trigger delivered again keeps one place, is applied once on release, and a repeat is a duplicate', async () => {
    const { engine, logger } = await setup(['a', 'b']);
    await engine.applyTrigger('a', sent('Pick', 'a'));
    expect((await engine.applyTrigger('b', sent('Pick', 'b'))).outcome).toBe('capacityQueued');
    expect((await engine.applyTrigger('b', sent('Pick', 'b'))).outcome).toBe('capacityQueued');
    expect((await engine.flow!.view('orders', 'customer:42')).capacity[0]!.queued).toHaveLength(1);

    await engine.applyTrigger('a', sent('Done', 'a'));
    expect(logger.lines.filter((line) => line.level !== 'info')).toEqual([]);
    expect((await engine.getHistory('b')).items.filter((entry) => entry.triggerId === 'Pick-b')).toHaveLength(1);
    expect((await engine.applyTrigger('b', sent('Pick', 'b'))).outcome).toBe('duplicate');
  });

  it("incarnations × capacity-queued triggers, deletion and re-creation: a deleted instance's queued trigger never reaches the instance created again with its id", async () => {
    const { engine } = await setup(['a', 'b']);
    await engine.applyTrigger('a', sent('Pick', 'a'));
    expect((await engine.applyTrigger('b', sent('Pick', 'b'))).outcome).toBe('capacityQueued');
    await engine.deleteInstance('b', { force: true });
    await engine.createInstance({ workflowId: 'orders', instanceId: 'b', context: { customer: '42' } });

    await engine.applyTrigger('a', sent('Done', 'a'));
    expect((await engine.getInstance('b')).stateId).toBe('open');
    expect((await engine.flow!.view('orders', 'customer:42')).capacity[0]).toMatchObject({ members: [], queued: [] });
  });

  it('crash resumption × capacity-queued triggers: a place freed with no offer made (the leaving change crashed before it, or was a cancel) is offered by the next trigger that meets the row', async () => {
    const { engine, ports } = await setup(['a', 'b', 'c']);
    await engine.applyTrigger('a', sent('Pick', 'a'));
    expect((await engine.applyTrigger('b', sent('Pick', 'b'))).outcome).toBe('capacityQueued');
    // A cancel counts nothing out and offers nothing: the row still names `a`, as after a crash between the save and the offer.
    await engine.cancel('a');
    expect(((await ports.flow!.getRow('orders', 'capacity|picking|customer:42'))!.value as { members: unknown[] }).members).toHaveLength(1);

    // `c` arrives: the full row is reconciled with `a`'s own record, room is free but `b` is ahead, so `c` waits and `b` is offered.
    const c = await engine.applyTrigger('c', sent('Pick', 'c'));
    expect(c.outcome).toBe('capacityQueued');
    expect(c.trace?.[0]?.detail).toBe('queued: customer:42 at 0/1 in picking');
    expect((await engine.getInstance('b')).stateId).toBe('picking');
    expect((await engine.getInstance('c')).stateId).toBe('open');
    expect((await engine.flow!.view('orders', 'customer:42')).capacity[0]).toMatchObject({ members: [{ instanceId: 'b' }], queued: [{ instanceId: 'c' }] });
  });
});
