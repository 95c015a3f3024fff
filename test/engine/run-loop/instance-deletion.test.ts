/** Deletion under the lease (instance-deletion.ts), on in-memory ports. */
import { ConflictError } from '../../../src/engine';
import { runLoopParts } from './parts';

async function due(parts: Awaited<ReturnType<typeof runLoopParts>>): Promise<string[]> {
  const found: string[] = [];
  for await (const timer of parts.dueTimers.listDue(new Date('2027-01-01'))) found.push(timer.instanceId);
  return found;
}

describe('InstanceDeletion', () => {
  it('removes the instance with its interest rows, due-timer rows and rows, and forgets that its outbox was relayed', async () => {
    const parts = await runLoopParts();
    const { creation, deletion, workflow, instances, interests, followUp } = parts;
    const created = await creation.create(workflow, { instanceId: 'i1', context: { owner: 'ann' } });
    followUp.relayedAll(created);
    expect(await due(parts)).toEqual(['i1']);
    const deleted = await deletion.delete('i1', true);
    expect(deleted.decision?.result).toEqual({ instanceId: 'i1', outcome: 'deleted', fromStateId: 'a' });
    // Its rows were relayed by this process at this ETag: no leftovers are looked up.
    expect(deleted.outbox).toEqual([]);
    expect(await instances.get('i1')).toBeUndefined();
    expect(interests.subjectsOf('i1')).toEqual([]);
    expect(await due(parts)).toEqual([]);
    expect(followUp.relayedAt(created.instance)).toBe(false);
  });

  it('finishes a deletion a crash stopped after its mark, without deciding again', async () => {
    const { creation, deletion, workflow, instances, interests } = await runLoopParts();
    const created = await creation.create(workflow, { instanceId: 'i1', context: { owner: 'ann' } });
    await instances.save({ ...created.instance, deleting: { at: '2026-01-01T00:00:00.000Z' } }, { history: [] }, { ifMatch: created.instance.etag });
    // A guard would refuse: it is not asked for an instance already marked.
    const deleted = await deletion.delete('i1', false, {}, () => ({ instanceId: 'i1', outcome: 'skipped' }));
    expect(deleted.decision?.result.outcome).toBe('deleted');
    // Not relayed yet: the timer row the creation listed is handed back for the relay, as after any change.
    expect(deleted.outbox.map((row) => row.kind)).toEqual(['timer']);
    expect(await instances.get('i1')).toBeUndefined();
    expect(interests.subjectsOf('i1')).toEqual([]);
  });

  it('refuses a waiting instance without force (ConflictError), and one whose guard answers is left as it was', async () => {
    const { creation, deletion, workflow, instances } = await runLoopParts();
    await creation.create(workflow, { instanceId: 'i1', context: { owner: 'ann' } });
    const before = await instances.get('i1');
    await expect(deletion.delete('i1', false)).rejects.toBeInstanceOf(ConflictError);
    expect((await deletion.delete('i1', true, {}, () => ({ instanceId: 'i1', outcome: 'skipped' }))).decision?.result.outcome).toBe('skipped');
    expect(await instances.get('i1')).toEqual(before);
  });

  it('answers an id that does not exist with no decision, and takes no lease for it', async () => {
    const { deletion, leases } = await runLoopParts();
    const withLease = jest.spyOn(leases, 'withLease');
    expect(await deletion.delete('nobody', true)).toEqual({ outbox: [] });
    expect(withLease).not.toHaveBeenCalled();
  });

  it('never asks flow admission to re-offer room or count out for an instance that held none', async () => {
    const { creation, deletion, workflow, admission } = await runLoopParts();
    await creation.create(workflow, { instanceId: 'i1', context: { owner: 'ann' } });
    await deletion.delete('i1', true);
    expect(admission.calls.filter((call) => call !== 'giveBackUnusedPlace')).toEqual([]);
  });
});
