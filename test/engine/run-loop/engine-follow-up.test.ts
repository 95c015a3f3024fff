/** The facade's follow-up of a change after its lease (engine-follow-up.ts): the relay, its failures, waiters offered again. */
import { FollowUpRelay } from '../../../src/engine/engine-follow-up';
import { NotFoundError, StorageError, type AppliedDecision, type CapacityOffer, type OutboxRow, type StoredInstance, type Trigger } from '../../../src/engine';
import { recordingLogger } from '../support';

const instance = { id: 'i1', etag: 'e1', incarnation: 'inc1' } as unknown as StoredInstance;
const row = { id: 'r1', kind: 'trigger', payload: { id: 't1', name: 'Raised', subjects: [] } } as unknown as OutboxRow;

function followUps(relay: (instanceId: string, rows: readonly OutboxRow[]) => Promise<boolean>, stored: StoredInstance | undefined = instance) {
  const logger = recordingLogger();
  const relayed: AppliedDecision[] = [];
  const forgotten: CapacityOffer[] = [];
  const applied: string[] = [];
  const runtime = {
    relayedAll: (decided: AppliedDecision) => void relayed.push(decided),
    capacity: { forget: async (offer: CapacityOffer) => void forgotten.push(offer) },
  } as unknown as ConstructorParameters<typeof FollowUpRelay>[1];
  const relayer = new FollowUpRelay({ relay }, runtime, { get: async () => stored }, logger, async (instanceId: string, trigger: Trigger) => {
    applied.push(`${instanceId}:${trigger.id}`);
    return { instanceId, outcome: 'transitioned' };
  });
  return { relayer, logger, relayed, forgotten, applied };
}

describe('FollowUpRelay', () => {
  it('relays the rows of a change and tells the run loop when every row went, not when some stayed', async () => {
    const calls: string[] = [];
    const all = followUps(async (instanceId, rows) => (calls.push(`${instanceId}:${rows.length}`), true));
    await all.relayer.relayAfter({ instance, outbox: [row] }, {});
    expect(calls).toEqual(['i1:1']);
    expect(all.relayed).toHaveLength(1);
    const some = followUps(async () => false);
    await some.relayer.relayAfter({ instance, outbox: [row] }, {});
    expect(some.relayed).toEqual([]);
  });

  it('throws a retryable failure (the caller’s retry relays again from the load) and logs any other', async () => {
    const retryable = followUps(async () => Promise.reject(new StorageError('busy', 503, true)));
    await expect(retryable.relayer.relayAfter({ instance, outbox: [row] }, {})).rejects.toBeInstanceOf(StorageError);
    const refused = followUps(async () => Promise.reject(new StorageError('bad', 400, false)));
    await refused.relayer.relayAfter({ instance, outbox: [row] }, {});
    expect(refused.logger.lines.map((line) => line.message)).toEqual(['Could not deliver outbox rows; they stay for the next load or start']);
  });

  it('relays a deletion’s re-offers though the instance is gone, and does not remember it as relayed', async () => {
    const calls: string[] = [];
    const deleted = followUps(async (instanceId) => (calls.push(instanceId), true));
    await deleted.relayer.relayAfter({ decision: { result: { instanceId: 'i1', outcome: 'deleted' }, logs: [] }, outbox: [], released: [row] }, {});
    expect(calls).toEqual(['i1']);
    expect(deleted.relayed).toEqual([]);
  });

  it('answers a change of no instance with NotFoundError', async () => {
    const { relayer } = followUps(async () => true);
    await expect(relayer.changed('i1', { outbox: [] }, {})).rejects.toBeInstanceOf(NotFoundError);
    await expect(relayer.changed('i1', { instance, outbox: [] }, {})).resolves.toBe(instance);
  });

  it('offers a waiter again to its instance, and drops one whose instance is gone or is another incarnation', async () => {
    const offer = { waiter: { instanceId: 'i1', incarnation: 'inc1', trigger: { id: 'w1', name: 'Go', subjects: [] } } } as unknown as CapacityOffer;
    const live = followUps(async () => true);
    await live.relayer.relayAfter({ instance, outbox: [], capacityOffers: [offer] }, {});
    expect(live.applied).toEqual(['i1:w1']);
    expect(live.forgotten).toEqual([offer]); // applied (not queued again): it leaves the queue
    const other = followUps(async () => true, { ...instance, incarnation: 'inc2' });
    await other.relayer.relayAfter({ instance, outbox: [], capacityOffers: [offer] }, {});
    expect(other.applied).toEqual([]);
    expect(other.forgotten).toEqual([offer]);
  });
});
