/**
 * The inbox index of human tasks on Azurite (issue 39, part 3): rows written with the instance's saves,
 * an inbox that reads only the caller's partitions (one query per id, group and role), filters and paging
 * by due date, rows gone once the task closes.
 */
import { Engine } from '../../src/engine';
import { silentLogger } from '../../src/engine/steps';
import { ManualClock } from '../../src/testing';
import { createRequestCounter } from '../../src/storage';
import { createTestStorage } from './fixtures';
import { ann, approvalWorkflow, bob, MONDAY_NINE, person } from '../support/human-tasks';

/** The requests the inbox index's table received (its rows share the search table). */
function searchTableRequests(counter: ReturnType<typeof createRequestCounter>): string[] {
  return counter
    .requests()
    .filter((request) => request.endsWith('Search'))
    .map((request) => request.split(' ').slice(0, 2).join(' '));
}

async function setUp() {
  const counter = createRequestCounter();
  const storage = await createTestStorage({ requestCounter: counter });
  const clock = new ManualClock(MONDAY_NINE);
  const engine = new Engine(
    {
      workflows: storage.workflows,
      instances: storage.instances,
      history: storage.history,
      outbox: storage.outbox,
      events: storage.events,
      interests: storage.interests,
      leases: storage.leases,
      tasks: storage.tasks,
    },
    { clock, logger: silentLogger },
  );
  // No subscriptions: no event deliveries in the background while the inbox's requests are counted.
  const { subscriptions: _subscriptions, ...definition } = approvalWorkflow({ assignees: { groups: ['approvers'], expression: 'context.approver' }, escalation: [], due: { at: 'context.due' } });
  await engine.createWorkflow(definition);
  return { storage, engine, counter };
}

describe('the inbox index on Table storage', () => {
  it('files each open task under its principals, lists a caller’s inbox from their partitions only, by due date, in pages', async () => {
    const { storage, engine, counter } = await setUp();
    // Tasks for other people: they must not be read for ann.
    for (let n = 0; n < 6; n++)
      await engine.createInstance({ workflowId: 'expenses', instanceId: `other-${n}`, context: { amount: n, claimant: 'x', approver: `someone-${n}`, due: '2026-12-10T09:00:00Z' } });
    for (const [id, due] of [
      ['late', '2026-12-01T09:00:00Z'],
      ['soon', '2026-12-02T09:00:00Z'],
      ['later', '2026-12-09T09:00:00Z'],
    ] as const)
      await engine.createInstance({ workflowId: 'expenses', instanceId: id, context: { amount: 1, claimant: 'x', approver: 'user:ann', due } });
    const annAlone = person('ann'); // without the approvers group: only her own partition
    counter.reset();
    const first = await engine.tasks.inbox(annAlone, {}, { limit: 2 });
    expect(searchTableRequests(counter)).toEqual(['table GET']);
    expect(first.items.map((row) => row.instanceId)).toEqual(['late', 'soon']);
    const second = await engine.tasks.inbox(annAlone, {}, { limit: 2, continuationToken: first.continuationToken! });
    expect(second.items.map((row) => row.instanceId)).toEqual(['later']);
    expect(second.continuationToken).toBeUndefined();
    // With her group: two partitions, each task once.
    counter.reset();
    const withGroup = await engine.tasks.inbox(ann, { dueBefore: '2026-12-05T00:00:00Z' }, { limit: 50 });
    expect(searchTableRequests(counter)).toEqual(['table GET', 'table GET']);
    expect(withGroup.items.map((row) => row.instanceId)).toEqual(['late', 'soon']);
    expect((await engine.tasks.inbox(bob, { workflowId: 'expenses', stateId: 'review' }, { limit: 50 })).items).toHaveLength(9);
    expect((await engine.tasks.inbox(bob, { escalated: true }, { limit: 50 })).items).toHaveLength(0);
    // Claimed: the rows say so; completed: the rows are gone.
    await engine.tasks.claim('late~0', ann);
    expect((await engine.tasks.inbox(annAlone, {}, { limit: 1 })).items[0]).toMatchObject({ taskId: 'late~0', claimedBy: 'ann' });
    await engine.tasks.complete('late~0', ann, { outcome: 'Approve' });
    expect((await engine.getInstance('late')).stateId).toBe('approved');
    expect((await engine.tasks.inbox(ann, {}, { limit: 50 })).items.map((row) => row.instanceId)).not.toContain('late');
    const rowsLeft: string[] = [];
    for await (const entity of storage.clients.search.listEntities()) if (String(entity.taskId) === 'late~0') rowsLeft.push(String(entity.partitionKey));
    expect(rowsLeft).toEqual([]);
  });
});
