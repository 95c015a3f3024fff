/** Interest and due-timer rows beside the save (index-rows.ts), on the in-memory indexes. */
import { IndexRows } from '../../../src/engine/runtime';
import type { Instance } from '../../../src/engine';
import { InMemoryDueTimerIndex, InMemoryInterestIndex } from '../../../src/testing';
import { recordingLogger } from '../support';

const armed = { transitionId: 'later', dueAt: '2026-01-01T01:00:00.000Z' };
const base = { id: 'i1', workflowId: 'w', stateId: 'a', status: 'waiting', stateEntry: 1, interests: [], timers: [] } as unknown as Instance;

async function due(index: InMemoryDueTimerIndex): Promise<string[]> {
  const found: string[] = [];
  for await (const timer of index.listDue(new Date('2027-01-01'))) found.push(timer.transitionId);
  return found;
}

function rows() {
  const interests = new InMemoryInterestIndex();
  const dueTimers = new InMemoryDueTimerIndex();
  const logger = recordingLogger();
  return { interests, dueTimers, logger, rows: new IndexRows({ interests, dueTimers }, { logger }) };
}

describe('IndexRows', () => {
  it('adds the due-time rows of timers a change arms and removes those it disarms', async () => {
    const { rows: index, dueTimers } = rows();
    const withTimer = { ...base, timers: [armed] } as unknown as Instance;
    await index.indexTimers(base, withTimer, {});
    expect(await due(dueTimers)).toEqual(['later']);
    await index.unindexTimers(withTimer, base, {});
    expect(await due(dueTimers)).toEqual([]);
  });

  it('does nothing about timers without a due-timer index', async () => {
    const interests = new InMemoryInterestIndex();
    const index = new IndexRows({ interests }, { logger: recordingLogger() });
    await expect(index.indexTimers(base, { ...base, timers: [armed] } as unknown as Instance, {})).resolves.toBeUndefined();
  });

  it('logs, and does not throw, when stale rows cannot be removed (a stale row only costs a `notInterested`)', async () => {
    const { rows: index, interests, dueTimers, logger } = rows();
    interests.remove = () => Promise.reject(new Error('down'));
    dueTimers.remove = () => Promise.reject(new Error('down'));
    await index.removeInterests('i1', ['s'], {});
    await index.unindexTimers({ ...base, timers: [armed] } as unknown as Instance, base, {});
    expect(logger.lines.map((line) => line.message)).toEqual(['Could not remove stale interest rows', 'Could not remove stale due-timer rows']);
  });
});
