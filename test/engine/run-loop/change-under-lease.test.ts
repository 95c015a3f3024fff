/** The lease-load-decide-save step (change-under-lease.ts) on in-memory ports. */
import { PreconditionFailedError, type Decide } from '../../../src/engine';
import { runLoopParts } from './parts';

async function withInstance() {
  const parts = await runLoopParts();
  await parts.creation.create(parts.workflow, { instanceId: 'i1', context: { owner: 'ann' } });
  return parts;
}

const suspendCause = { kind: 'suspend', sequence: 1 } as const;

describe('ChangeUnderLease', () => {
  it('decides again on the instance as another writer saved it when the conditional save meets a 412, and saves once', async () => {
    const { loop, instances } = await withInstance();
    const seen: unknown[] = [];
    const decide: Decide = async (stored) => {
      seen.push(stored.context.owner);
      // Another writer saves between this load and this decision's save (the first time only).
      if (seen.length === 1) await instances.save({ ...stored, context: { owner: 'bob' } }, { history: [] }, { ifMatch: stored.etag });
      return { result: { instanceId: stored.id, outcome: 'suspended' }, change: { instance: { ...stored, context: { ...stored.context, seen: seen.length } }, outbox: [] }, logs: [] };
    };
    const decided = await loop.decideUnderLease('i1', () => suspendCause, decide);
    expect(seen).toEqual(['ann', 'bob']);
    expect(decided.instance?.context).toEqual({ owner: 'bob', seen: 2 });
    expect((await instances.get('i1'))?.context).toEqual({ owner: 'bob', seen: 2 });
  });

  it('gives up with PreconditionFailedError after maxSaveAttempts when every save meets a 412', async () => {
    const { loop, instances, engine } = await withInstance();
    let decisions = 0;
    const decide: Decide = async (stored) => {
      decisions++;
      await instances.save({ ...stored, context: { owner: `w${decisions}` } }, { history: [] }, { ifMatch: stored.etag });
      return { result: { instanceId: stored.id, outcome: 'suspended' }, change: { instance: { ...stored }, outbox: [] }, logs: [] };
    };
    await expect(loop.decideUnderLease('i1', () => suspendCause, decide)).rejects.toBeInstanceOf(PreconditionFailedError);
    expect(decisions).toBe(engine.options.maxSaveAttempts);
  });

  it('saves nothing for a decision without a change, emits its log lines once, and returns the leftover rows the instance lists', async () => {
    const { loop, instances, logger } = await withInstance();
    const before = await instances.get('i1');
    const writes = instances.writes;
    const decided = await loop.decideUnderLease(
      'i1',
      () => suspendCause,
      async (stored) => ({ result: { instanceId: stored.id, outcome: 'notInterested' }, logs: [{ level: 'info', message: 'looked', properties: {} }] }),
    );
    expect(instances.writes).toBe(writes);
    expect(decided.instance?.etag).toBe(before?.etag);
    // The timer row the creation wrote, not relayed yet: handed back for the relay.
    expect(decided.outbox.map((row) => row.id)).toEqual(before?.outbox);
    expect(logger.lines.filter((line) => line.message === 'looked')).toHaveLength(1);
  });

  it('treats an instance marked `deleting` as gone: no decision is made', async () => {
    const { loop, instances } = await withInstance();
    const stored = (await instances.get('i1'))!;
    await instances.save({ ...stored, deleting: { at: '2026-01-01T00:00:00.000Z' } }, { history: [] }, { ifMatch: stored.etag });
    const decide = jest.fn<ReturnType<Decide>, Parameters<Decide>>();
    expect(await loop.decideUnderLease('i1', () => suspendCause, decide)).toEqual({ outbox: [] });
    expect(decide).not.toHaveBeenCalled();
  });

  it('adds interest rows before the save and removes stale ones after it', async () => {
    const { loop, interests } = await withInstance();
    expect(interests.subjectsOf('i1')).toEqual(expect.arrayContaining(['owner:ann']));
    await loop.decideUnderLease(
      'i1',
      () => suspendCause,
      async (stored) => ({
        result: { instanceId: stored.id, outcome: 'suspended' },
        change: { instance: { ...stored, interests: ['owner:bob'] }, outbox: [] },
        logs: [],
      }),
    );
    expect(interests.subjectsOf('i1')).toEqual(['owner:bob']);
  });

  it('looks up leftover outbox rows only while the instance lists some this process has not relayed', async () => {
    const { loop, followUp, instances } = await withInstance();
    const stored = (await instances.get('i1'))!;
    expect(stored.outbox.length).toBeGreaterThan(0); // the creation armed a timer: its row is listed until relayed
    expect((await loop.leftoversOf(stored, {})).map((row) => row.id)).toEqual(stored.outbox);
    followUp.relayedAll({ instance: stored, outbox: [] });
    expect(await loop.leftoversOf(stored, {})).toEqual([]);
  });
});
