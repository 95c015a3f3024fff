/** The DueTimerIndex contract (issue 13), run against every implementation. */
import { onePage } from '../../../src/engine/ports';
import type { DueTimerIndex } from '../../../src/engine/ports';
import type { DueTimer } from '../../../src/engine/decide';
import { timerTriggerId } from '../../../src/engine/model';
import { collect } from '../fixtures';

function timer(instanceId: string, dueAt: string, transitionId = 'escalate', stateEntry = 0): DueTimer {
  return { timerId: timerTriggerId(instanceId, stateEntry, transitionId), instanceId, transitionId, stateEntry, dueAt };
}

export function dueTimerIndexContract(label: string, create: () => Promise<DueTimerIndex>): void {
  describe(`DueTimerIndex contract: ${label}`, () => {
    let index: DueTimerIndex;
    beforeEach(async () => {
      index = await create();
    });

    const due = async (until: string, pageSize = 1000) => (await collect((options) => onePage(index.listDue(new Date(until), options)), pageSize)).items;

    it('lists what is due by a time, earliest first', async () => {
      const late = timer('late', '2026-11-22T16:00:00.000Z');
      const early = timer('early', '2026-11-20T09:00:00.000Z');
      const exact = timer('exact', '2026-11-21T12:00:00.000Z', 'remind', 3);
      await index.add([late, early]);
      await index.add([exact]);
      expect(await due('2026-11-21T12:00:00.000Z')).toEqual([early, exact]); // due at the instant is due
      expect(await due('2026-11-21T11:59:59.999Z')).toEqual([early]);
      expect(await due('2030-01-01T00:00:00.000Z', 1)).toEqual([early, exact, late]); // across pages
    });

    it('keeps the causal depth and budget a timer due at once carries (issue 22: a restart must not start its loop again at 0, nor its tree with the whole budget)', async () => {
      const deep = { ...timer('deep', '2000-01-01T00:00:00.000Z'), causalDepth: 7, causalBudget: 155 };
      const shallow = timer('shallow', '2000-01-01T00:00:01.000Z');
      await index.add([deep, shallow]);
      expect(await due('2030-01-01T00:00:00.000Z')).toEqual([deep, shallow]);
    });

    it("keeps a pending retry's timer as a retry (the trigger it re-applies and the attempt), so a restart re-applies, not fires a transition", async () => {
      const retry: DueTimer = { ...timer('r1', '2026-11-20T09:00:00.000Z', ''), timerId: 'retry:2:r1:i.abc:2.1795166800000:pay-1', incarnation: 'abc', retry: { triggerId: 'pay-1', attempt: 2 } };
      await index.add([retry]);
      expect(await due('2030-01-01T00:00:00.000Z')).toEqual([retry]);
    });

    it('is idempotent: adding twice lists once; removing what is gone is fine', async () => {
      const one = timer('one', '2026-11-20T09:00:00.000Z');
      await index.add([one]);
      await index.add([one, one]);
      expect(await due('2030-01-01T00:00:00.000Z')).toEqual([one]);
      await index.remove([one, timer('never', '2026-11-20T09:00:00.000Z')]);
      await index.remove([one]);
      expect(await due('2030-01-01T00:00:00.000Z')).toEqual([]);
    });

    it('keeps timers of the same instance and due time apart, and takes batches over 100 and times before 1970', async () => {
      const many = Array.from({ length: 150 }, (_, n) => timer(`bulk-${n}`, '2026-11-20T09:00:00.000Z', `t${n % 3}`, n));
      const ancient = timer('ancient', '1900-01-01T00:00:00.000Z');
      await index.add([...many, ancient]);
      const listed = await due('2026-11-20T09:00:00.000Z');
      expect(listed).toHaveLength(151);
      expect(listed[0]).toEqual(ancient);
      await index.remove(many);
      expect(await due('2030-01-01T00:00:00.000Z')).toEqual([ancient]);
    });
  });
}
