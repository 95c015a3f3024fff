/**
 * Rows the index holds that their instance does not (a crash between a save's rows and the save, a
 * creation that never happened, a failed removal of an ended instance's stale rows) are never an
 * answer, and a search that meets them removes them, under the instance's lease.
 */
import { Engine } from '../../../src/engine';
import { InMemorySearchIndex, createInMemoryPorts } from '../../../src/testing';
import { FakeClock, recordingLogger, trigger } from '../support';
import { claims } from './claims-workflow';

/** The in-memory ports, whose instance store "crashes" (throws, having written nothing) when told to. */
function crashingSetUp() {
  const clock = new FakeClock();
  const search = new InMemorySearchIndex({ now: clock.now });
  const ports = { ...createInMemoryPorts(), search };
  const crash = { save: false, create: false };
  const save = ports.instances.save.bind(ports.instances);
  const create = ports.instances.create.bind(ports.instances);
  ports.instances.save = async (...args) => {
    if (crash.save) throw new Error('the process died between the index rows and the save');
    return save(...args);
  };
  ports.instances.create = async (...args) => {
    if (crash.create) throw new Error('the process died between the index rows and the create');
    return create(...args);
  };
  const engine = new Engine(ports, { clock, logger: recordingLogger() });
  const ids = async (filter: string) => (await engine.searchInstances({ workflowId: 'claims', filter }, { maxPageSize: 1000 })).items.map((instance) => instance.id);
  const rowsOf = (id: string, field: string) => search.entriesOf('claims', id).filter((entry) => entry.startsWith(`${field}!`));
  return { clock, search, engine, crash, ids, rowsOf, ports };
}

describe('search rows repaired', () => {
  it('a crash between the rows and the save: the rows of the save that never happened are no answer, and the search that meets them removes them', async () => {
    const { clock, engine, crash, ids, rowsOf } = crashingSetUp();
    await engine.createWorkflow(claims);
    await engine.createInstance({ workflowId: 'claims', instanceId: 'c1', context: { amount: 10 } });
    clock.advance(1000);
    crash.save = true;
    await expect(engine.applyTrigger('c1', trigger('Raise', { subjects: ['c1'], parameters: { amount: 20 } }))).rejects.toThrow(/process died/);
    crash.save = false;
    expect(rowsOf('c1', 'amount')).toHaveLength(2);
    expect(rowsOf('c1', 'updatedAt')).toHaveLength(2);
    expect(await ids('amount = 20')).toEqual([]);
    expect(rowsOf('c1', 'amount')).toHaveLength(1);
    // A count that meets the crash's updatedAt row reads the instance, counts it as it is, and repairs the row.
    expect((await engine.countInstances({ workflowId: 'claims', filter: "updatedAt > '2025-01-01'" })).count).toBe(1);
    expect(rowsOf('c1', 'updatedAt')).toHaveLength(1);
    expect(await ids('amount = 10')).toEqual(['c1']);
    // The change made again afterwards is found by its value.
    await engine.applyTrigger('c1', trigger('Raise', { id: 'raise-2', subjects: ['c1'], parameters: { amount: 20 } }));
    expect(await ids('amount = 20')).toEqual(['c1']);
  });

  it('a creation that never happened: its rows are no answer, and go once older than the clock margin (a creation in flight keeps its own)', async () => {
    const { clock, engine, crash, ids, rowsOf } = crashingSetUp();
    await engine.createWorkflow(claims);
    crash.create = true;
    await expect(engine.createInstance({ workflowId: 'claims', instanceId: 'ghost', context: { amount: 5 } })).rejects.toThrow(/process died/);
    crash.create = false;
    expect(await ids('amount = 5')).toEqual([]);
    expect(rowsOf('ghost', 'amount')).toHaveLength(1);
    clock.advance(6 * 60_000); // past the clock margin of five minutes
    expect(await ids('amount = 5')).toEqual([]);
    expect(rowsOf('ghost', 'amount')).toEqual([]);
  });

  it("a creation that reuses the id between the repair's look-up and its removal keeps its rows (the removal is on each row's ETag)", async () => {
    const { clock, engine, crash, ids, rowsOf, ports } = crashingSetUp();
    await engine.createWorkflow(claims);
    crash.create = true;
    await expect(engine.createInstance({ workflowId: 'claims', instanceId: 'ghost', context: { amount: 5 } })).rejects.toThrow(/process died/);
    crash.create = false;
    clock.advance(6 * 60_000);
    // The search reads the id, then the repair looks it up twice before it removes the rows; a new creation with the id runs to its end
    // just after the repair's second look-up, rewriting the same rows (same values) and creating the instance.
    const get = ports.instances.get.bind(ports.instances);
    let lookUps = 0;
    ports.instances.get = async (...args) => {
      const found = await get(...args);
      if (args[0] === 'ghost' && ++lookUps === 3) await engine.createInstance({ workflowId: 'claims', instanceId: 'ghost', context: { amount: 5 } });
      return found;
    };
    expect(await ids('amount = 5')).toEqual([]);
    ports.instances.get = get;
    expect(rowsOf('ghost', 'amount')).toHaveLength(1);
    expect(await ids('amount = 5')).toEqual(['ghost']);
  });

  it('an ended instance whose stale rows could not be removed: a search that meets one removes it', async () => {
    const { clock, search, engine, ids, rowsOf } = crashingSetUp();
    await engine.createWorkflow(claims);
    await engine.createInstance({ workflowId: 'claims', instanceId: 'c1', context: { amount: 10 } });
    clock.advance(1000);
    await engine.applyTrigger('c1', trigger('Close', { subjects: ['c1'] }));
    const ended = await engine.getInstance('c1');
    const open = ended.search!.stale!.find((entry) => entry.startsWith('stateId!'))!;
    // As a removal that failed right after the ending save leaves it.
    await search.write('claims', 'c1', { add: [open], remove: [], ...(ended.incarnation ? { incarnation: ended.incarnation } : {}) });
    expect(rowsOf('c1', 'stateId')).toHaveLength(2);
    expect(await ids("stateId = 'open'")).toEqual([]);
    expect(rowsOf('c1', 'stateId')).toEqual(ended.search!.entries.filter((entry) => entry.startsWith('stateId!')));
  });

  it('rows a live instance made stale stay for its next save (removing them now would make that save fail its batch)', async () => {
    const { clock, engine, ids, rowsOf } = crashingSetUp();
    await engine.createWorkflow(claims);
    await engine.createInstance({ workflowId: 'claims', instanceId: 'c1', context: { amount: 10 } });
    clock.advance(1000);
    await engine.applyTrigger('c1', trigger('Raise', { subjects: ['c1'], parameters: { amount: 20 } }));
    expect(await ids('amount < 100')).toEqual(['c1']);
    expect(rowsOf('c1', 'amount')).toHaveLength(2);
  });
});
