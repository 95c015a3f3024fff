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

/** The process stops here: whatever the handler was to hand on is not handed on. */
const stopped = async (): Promise<void> => {
  throw new Error('the process stopped');
};

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

  it('crash resumption × capacity re-offers: a re-offer saved by the leaving change just before the crash is applied once after the restart', async () => {
    const { engine, ports } = await setup(['a', 'b']);
    await engine.applyTrigger('a', sent('Pick', 'a'));
    expect((await engine.applyTrigger('b', sent('Pick', 'b'))).outcome).toBe('capacityQueued');
    // The process stops after a's leaving save, before its outbox is handed on.
    const crashing = engine.withDelivery({ trigger: stopped, timer: stopped, startInstance: stopped, cancelChildren: stopped });
    await crashing.applyTrigger('a', sent('Done', 'a'));
    expect((await engine.getInstance('a')).outbox).toEqual([expect.stringMatching(/^raised:1:a:i\.[0-9a-f]+:k2\.Pick-b:0$/)]);
    expect((await engine.getInstance('b')).stateId).toBe('open');

    const restarted = new Engine(ports, { clock: new ManualClock('2026-11-26T10:00:00.000Z'), logger: recordingLogger(), newId: () => 'after' });
    expect(await restarted.relayLeftovers()).toBe(1);
    expect(await restarted.relayLeftovers()).toBe(0);
    expect((await restarted.getInstance('b')).stateId).toBe('picking');
    expect((await restarted.getHistory('b')).items.filter((entry) => entry.triggerId === 'Pick-b')).toHaveLength(1);
    expect((await restarted.flow!.view('orders', 'customer:42')).capacity[0]).toMatchObject({ members: [{ instanceId: 'b' }], queued: [] });
  });
});
