import type { DueTimerIndex } from '../../src/engine/ports';
import type { DueTimer } from '../../src/engine/decide';
import type { Trigger } from '../../src/engine/model';
import { LocalTimerScheduler } from '../../src/host/local/local-timer-scheduler';
import { silentLogger } from '../../src/host/local/logger';
import { InMemoryDueTimerIndex } from '../../src/testing';

/** The in-memory index, counting its reads. */
function countingIndex(): { index: DueTimerIndex; rows: InMemoryDueTimerIndex; reads: () => number } {
  const rows = new InMemoryDueTimerIndex();
  let reads = 0;
  const index: DueTimerIndex = {
    add: (timers, options) => rows.add(timers, options),
    remove: (timers, options) => rows.remove(timers, options),
    listDue: (until, options) => {
      reads += 1;
      return rows.listDue(until, options);
    },
  };
  return { index, rows, reads: () => reads };
}

function timer(id: string, dueInMs: number): DueTimer {
  return { timerId: id, instanceId: `instance-${id}`, transitionId: 'expire', stateEntry: 1, dueAt: new Date(Date.now() + dueInMs).toISOString() };
}

async function eventually(check: () => boolean, timeoutInMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutInMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('LocalTimerScheduler', () => {
  let scheduler: LocalTimerScheduler | undefined;
  afterEach(async () => {
    await scheduler?.stop();
    scheduler = undefined;
  });

  function start(index: DueTimerIndex, submit: (trigger: Trigger) => Promise<unknown>, options: { retryDelayInMs?: number } = {}): LocalTimerScheduler {
    scheduler = new LocalTimerScheduler({ index, submit, logger: silentLogger, minIntervalInMs: 10, ...options });
    scheduler.start();
    return scheduler;
  }

  it('reads the index once for an idle pass', async () => {
    const { index, reads } = countingIndex();
    await start(index, async () => undefined).idle();
    expect(reads()).toBe(1);
  });

  it('fires what is due and sleeps until the next row, from one read', async () => {
    const { index, rows, reads } = countingIndex();
    await rows.add([timer('due', -1_000), timer('next', 400)]);
    const submitted: string[] = [];
    const running = start(index, async (trigger) => void submitted.push(trigger.id));
    await running.idle();
    expect(submitted).toHaveLength(1);
    expect(reads()).toBe(1);
    await eventually(() => submitted.length === 2);
    expect(running.fired).toBe(2);
    expect(await collectDue(rows)).toEqual([]);
  });

  it('reads again only while pages are full of due rows, and fires each once', async () => {
    const { index, rows, reads } = countingIndex();
    await rows.add(Array.from({ length: 1_500 }, (_, n) => timer(`t${n}`, -60_000 + n)));
    const submitted: string[] = [];
    await start(index, async (trigger) => void submitted.push(trigger.id)).idle();
    expect(submitted).toHaveLength(1_500);
    expect(new Set(submitted).size).toBe(1_500);
    expect(reads()).toBe(2); // 1,000 due rows, then the last 500
    expect(await collectDue(rows)).toEqual([]);
  });

  it('keeps a row whose submit failed and fires it after the retry delay', async () => {
    const { index, rows } = countingIndex();
    await rows.add([timer('flaky', -1_000)]);
    let attempts = 0;
    const running = start(
      index,
      async () => {
        attempts += 1;
        if (attempts === 1) throw new Error('storage is down');
      },
      { retryDelayInMs: 50 },
    );
    await running.idle();
    expect(attempts).toBe(1);
    expect(await collectDue(rows)).toHaveLength(1); // not removed: it was not submitted
    await eventually(() => attempts === 2);
    await running.idle();
    expect(running.fired).toBe(1);
    expect(await collectDue(rows)).toEqual([]);
  });
});

async function collectDue(rows: InMemoryDueTimerIndex): Promise<DueTimer[]> {
  const all: DueTimer[] = [];
  for await (const page of rows.listDue(new Date(8.64e15)).byPage()) all.push(...page.items);
  return all;
}
