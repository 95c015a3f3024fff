/**
 * Search rows (engine/search/search-indexing.ts) crossed with every kind of follow-up work: whatever
 * changes an instance (a raised trigger, a timer, a child's start, a change with events, a migration, a
 * bulk action), its rows are written before the save and what it made stale goes with the next save;
 * deletion removes them all; a re-created id is never matched by rows of the earlier incarnation; a
 * crash between the rows' write and the save never makes a wrong answer, and the search that meets its rows
 * removes them.
 */
import { Engine, RetryLaterError, type ExternalRequest, type ExternalResponse, type ExternalServiceClient, type WorkflowDefinitionInput } from '../../src/engine';
import { InMemorySearchIndex, ManualClock, createInMemoryPorts } from '../../src/testing';
import { recordingLogger } from '../engine/support';

const ticket: WorkflowDefinitionInput = {
  id: 'ticket',
  displayName: 'Ticket',
  initialStateId: 'open',
  subscriptions: [{ id: 'audit', url: 'https://audit.example/hook', events: ['transitioned'] }],
  indexes: [{ name: 'priority', type: 'number', expression: 'context.priority' }],
  states: {
    open: {
      transitions: [
        { id: 'bump', targetStateId: 'open', conditions: [{ type: 'triggerName', name: 'Bump' }], actions: [{ type: 'setContext', expressions: { priority: 'context.priority + 1' } }] },
        {
          id: 'echo',
          targetStateId: 'open',
          conditions: [{ type: 'triggerName', name: 'Echo' }],
          actions: [{ type: 'raiseTrigger', trigger: { name: 'Bump', subjects: ['{{instance.id}}'] } }],
        },
        { id: 'spawn', targetStateId: 'open', conditions: [{ type: 'triggerName', name: 'Spawn' }], actions: [{ type: 'startInstance', workflowId: 'ticket', instanceId: 'child-1' }] },
        { id: 'escalate', targetStateId: 'escalated', timer: { after: 'PT1H' }, actions: [{ type: 'setContext', values: { priority: 9 } }] },
      ],
    },
    escalated: {},
  },
};

function setUp() {
  const clock = new ManualClock('2026-11-20T16:00:00.000Z');
  const search = new InMemorySearchIndex();
  const engine = new Engine({ ...createInMemoryPorts(), search }, { clock, logger: recordingLogger() });
  const ids = async (filter: string) => (await engine.searchInstances({ workflowId: 'ticket', filter }, { maxPageSize: 1000 })).items.map((instance) => instance.id).sort();
  return { clock, search, engine, ids };
}

describe('search rows', () => {
  it('search rows × pending retries: while the retry waits the instance is found as it was; the later attempt moves its rows', async () => {
    const clock = new ManualClock('2026-11-20T16:00:00.000Z');
    let failures = 1;
    const http: ExternalServiceClient = {
      async send(request: ExternalRequest): Promise<ExternalResponse> {
        if (failures-- > 0) throw new RetryLaterError({ type: 'http:5xx', message: 'HTTP 503', status: 503 }, (request.retry?.firstAttempt ?? 1) + 1, 60_000);
        return { status: 200, body: {} };
      },
    };
    const engine = new Engine({ ...createInMemoryPorts(), search: new InMemorySearchIndex() }, { clock, logger: recordingLogger(), http });
    const ids = async (filter: string) => (await engine.searchInstances({ workflowId: 'paid', filter }, { maxPageSize: 1000 })).items.map((instance) => instance.id).sort();
    await engine.createWorkflow({
      id: 'paid',
      displayName: 'Paid',
      initialStateId: 'due',
      indexes: [{ name: 'priority', type: 'number', expression: 'context.priority' }],
      states: {
        due: {
          transitions: [
            {
              id: 'pay',
              targetStateId: 'paid',
              conditions: [{ type: 'triggerName', name: 'Pay' }],
              actions: [
                { type: 'invokeExternalService', url: 'https://pay.example/charge', retry: { attempts: 3, initialDelay: 'PT1M' } },
                { type: 'setContext', values: { priority: 2 } },
              ],
            },
          ],
        },
        paid: {},
      },
    });
    await engine.createInstance({ workflowId: 'paid', instanceId: 'p1', context: { priority: 1 } });
    expect(await engine.applyTrigger('p1', { id: 'pay-1', name: 'Pay', subjects: ['p1'] })).toMatchObject({ outcome: 'retryScheduled' });
    expect(await ids("stateId = 'due' and priority = 1")).toEqual(['p1']);
    await clock.advanceBy(60_000);
    expect(await ids("stateId = 'paid' and priority = 2")).toEqual(['p1']);
    expect(await ids('priority = 1')).toEqual([]);
  });
  it('search rows × raised triggers: the change a raised trigger makes is findable by its new value, and not by the old', async () => {
    const { engine, ids } = setUp();
    await engine.createWorkflow(ticket);
    await engine.createInstance({ workflowId: 'ticket', instanceId: 't1', context: { priority: 1 } });
    await engine.applyTrigger('t1', { id: 'echo-1', name: 'Echo', subjects: ['t1'] });
    expect(await ids('priority = 2')).toEqual(['t1']);
    expect(await ids('priority = 1')).toEqual([]);
  });

  it('search rows × timers: a timer transition updates state and values', async () => {
    const { engine, clock, ids } = setUp();
    await engine.createWorkflow(ticket);
    await engine.createInstance({ workflowId: 'ticket', instanceId: 't1', context: { priority: 1 } });
    await clock.advanceBy(3_600_000);
    expect(await ids("stateId = 'escalated' and priority = 9")).toEqual(['t1']);
  });

  it('search rows × children: a child is indexed at its start and found by parentId', async () => {
    const { engine, ids } = setUp();
    await engine.createWorkflow(ticket);
    await engine.createInstance({ workflowId: 'ticket', instanceId: 'p1', context: { priority: 1 } });
    await engine.applyTrigger('p1', { id: 'spawn-1', name: 'Spawn', subjects: ['p1'] });
    expect(await ids("parentId = 'p1'")).toEqual(['child-1']);
  });

  it('search rows × events: a change that records lifecycle events still costs one batch of search rows', async () => {
    const { engine, search } = setUp();
    await engine.createWorkflow(ticket);
    await engine.createInstance({ workflowId: 'ticket', instanceId: 't1', context: { priority: 1 } });
    const before = search.writes;
    await engine.applyTrigger('t1', { id: 'bump-1', name: 'Bump', subjects: ['t1'] });
    expect(search.writes - before).toBe(1);
    expect(await engine.getInstance('t1')).toMatchObject({ search: { stale: expect.arrayContaining([expect.stringMatching(/^priority!/)]) } });
  });

  it('search rows × migrations: an instance migrated to a version with indexes is indexed, and found by the new field', async () => {
    const { engine, ids } = setUp();
    const { indexes: _none, ...unindexed } = ticket;
    await engine.createWorkflow(unindexed);
    await engine.createInstance({ workflowId: 'ticket', instanceId: 'old-1', context: { priority: 4 } });
    expect((await engine.getInstance('old-1')).search).toBeUndefined();
    await engine.putWorkflow('ticket', ticket, { ifMatch: '*' });
    expect(await ids('priority = 4')).toEqual([]);
    const result = await engine.migrationsAndBulkActions.migrate('old-1', { workflowId: 'ticket', fromVersion: 1, toVersion: 2, stateMap: {} });
    expect(result.outcome).toBe('migrated');
    expect(await ids('priority = 4')).toEqual(['old-1']);
  });

  it('search rows × bulk actions: a bulk cancel ends the instances and removes their stale rows at once', async () => {
    const { engine, search, ids } = setUp();
    await engine.createWorkflow(ticket);
    for (const id of ['b1', 'b2']) await engine.createInstance({ workflowId: 'ticket', instanceId: id, context: { priority: 1 } });
    for (const id of ['b1', 'b2'])
      expect(await engine.migrationsAndBulkActions.applyBulk(id, { action: 'cancel', filter: { workflowId: 'ticket' } }, { operationId: 'bulk-1' })).toMatchObject({ outcome: 'cancelled' });
    expect(await ids("status = 'cancelled'")).toEqual(['b1', 'b2']);
    const b1 = await engine.getInstance('b1');
    expect(search.entriesOf('ticket', 'b1')).toEqual([...b1.search!.entries]);
  });

  it('search rows × deletion: no row of a deleted instance is left', async () => {
    const { engine, search } = setUp();
    await engine.createWorkflow(ticket);
    await engine.createInstance({ workflowId: 'ticket', instanceId: 'd1', context: { priority: 1 } });
    await engine.applyTrigger('d1', { id: 'bump-1', name: 'Bump', subjects: ['d1'] });
    await engine.deleteInstance('d1', { force: true });
    expect(search.entriesOf('ticket', 'd1')).toEqual([]);
  });

  it('search rows × re-creation: a row the earlier incarnation left does not match the new one', async () => {
    const { engine, search, ids } = setUp();
    await engine.createWorkflow(ticket);
    const first = await engine.createInstance({ workflowId: 'ticket', instanceId: 'r1', context: { priority: 7 } });
    const leftover = first.search!.entries.find((entry) => entry.startsWith('priority!'))!;
    await engine.deleteInstance('r1', { force: true });
    // As a deletion that crashed after its save but before its rows went would leave it.
    await search.write('ticket', 'r1', { add: [leftover], remove: [], ...(first.incarnation ? { incarnation: first.incarnation } : {}) });
    await engine.createInstance({ workflowId: 'ticket', instanceId: 'r1', context: { priority: 7 } });
    // The new incarnation wrote its own row over it: found once, as itself.
    expect(await ids('priority = 7')).toEqual(['r1']);
    await engine.applyTrigger('r1', { id: 'bump-r', name: 'Bump', subjects: ['r1'] });
    expect(await ids('priority = 7')).toEqual([]);
    // A leftover of another incarnation that was not overwritten is never an answer.
    await search.write('ticket', 'r1', { add: ['priority!n' + '0'.repeat(16)], remove: [], incarnation: 'an-earlier-one' });
    expect(await ids('priority < 100')).toEqual(['r1']);
  });

  it('search rows × crash resumption (between the rows and the save): never a wrong answer, and the search that meets the rows removes them', async () => {
    const { engine, search, ids } = setUp();
    await engine.createWorkflow(ticket);
    const created = await engine.createInstance({ workflowId: 'ticket', instanceId: 'c1', context: { priority: 1 } });
    // The rows of a save that never happened (the process died after writing them).
    await search.write('ticket', 'c1', { add: ['priority!n' + 'c'.repeat(16)], remove: [], ...(created.incarnation ? { incarnation: created.incarnation } : {}) });
    expect(search.entriesOf('ticket', 'c1').filter((entry) => entry.endsWith('c'.repeat(16)))).toHaveLength(1);
    expect(await ids('priority > 2')).toEqual([]);
    // The search that met the row removed it, under the instance's lease.
    expect(search.entriesOf('ticket', 'c1').filter((entry) => entry.endsWith('c'.repeat(16)))).toEqual([]);
    await engine.applyTrigger('c1', { id: 'bump-c', name: 'Bump', subjects: ['c1'] });
    await engine.applyTrigger('c1', { id: 'bump-d', name: 'Bump', subjects: ['c1'] });
    expect(await ids('priority = 3')).toEqual(['c1']);
    expect(search.entriesOf('ticket', 'c1').filter((entry) => entry.startsWith('priority!'))).toHaveLength(2);
  });
});
