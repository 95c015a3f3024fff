/** Operating a live system on in-memory ports: migration, suspend and resume, deletion, bulk selection. */
import { ConflictError, NotFoundError, ValidationError, type WorkflowDefinitionInput } from '../../src/engine';
import { collectAll } from '../../src/testing';
import { testEngine } from './support';

const v1: WorkflowDefinitionInput = {
  id: 'claim',
  displayName: 'Claim',
  initialStateId: 'draft',
  states: {
    draft: { interests: ['claims'], transitions: [{ id: 'submit', targetStateId: 'review', conditions: [{ type: 'triggerName', name: 'Submit' }] }] },
    review: { transitions: [{ id: 'approve', targetStateId: 'paid', conditions: [{ type: 'triggerName', name: 'Approve' }] }] },
    legacy: { transitions: [{ id: 'drop', targetStateId: 'paid', conditions: [{ type: 'triggerName', name: 'Drop' }] }] },
    paid: {},
  },
};

// Version 2 renames `review` to `checking`, which has new interests and entry actions (that a migration must not run).
const v2: WorkflowDefinitionInput = {
  ...v1,
  states: {
    draft: { interests: ['claims', 'claims-v2'], transitions: [{ id: 'submit', targetStateId: 'checking', conditions: [{ type: 'triggerName', name: 'Submit' }] }] },
    checking: {
      interests: ['checker:{{context.owner}}'],
      entryActions: [
        { type: 'setContext', values: { enteredChecking: true } },
        { type: 'raiseTrigger', trigger: { name: 'Checking', subjects: ['audit'] } },
      ],
      transitions: [{ id: 'settle', targetStateId: 'paid', conditions: [{ type: 'triggerName', name: 'Settle' }] }],
    },
    paid: {},
  },
};

async function withClaims() {
  const env = testEngine();
  await env.engine.createWorkflow(v1);
  const create = (instanceId: string, owner = 'ann') => env.engine.createInstance({ workflowId: 'claim', instanceId, context: { owner } });
  return { ...env, create };
}

async function toReview(env: Awaited<ReturnType<typeof withClaims>>, instanceId: string) {
  await env.engine.applyTrigger(instanceId, { id: `submit-${instanceId}`, name: 'Submit', subjects: [instanceId] });
}

describe('migration', () => {
  it('relabels: pinned to the new version, state mapped, interests recomputed, one history entry, no entry actions', async () => {
    const env = await withClaims();
    await env.create('c1');
    await toReview(env, 'c1');
    await env.engine.addWorkflowVersion(v2, { ifMatch: '*' });
    const { request } = await env.engine.migrationsAndBulkActions.parseMigration('claim', { fromVersion: 1, toVersion: 2, stateMap: { review: 'checking' } });

    const result = await env.engine.migrationsAndBulkActions.migrate('c1', request);

    expect(result).toEqual({ instanceId: 'c1', outcome: 'migrated', fromStateId: 'review', toStateId: 'checking' });
    const after = await env.engine.getInstance('c1');
    expect(after).toMatchObject({ workflowVersion: 2, stateId: 'checking', status: 'waiting', context: { owner: 'ann' }, interests: ['Settle', 'c1', 'checker:ann'] });
    // Version 1's trigger name (Approve) is out of the index, version 2's in.
    expect(env.interests.subjectsOf('c1')).toEqual(['Settle', 'c1', 'checker:ann']);
    const history = (await env.engine.getHistory('c1')).items;
    expect(history.map((entry) => entry.event)).toEqual(['created', 'transitioned', 'migrated']);
    expect(history[2]).toMatchObject({ fromStateId: 'review', toStateId: 'checking', fromVersion: 1, toVersion: 2, status: 'waiting' });
    expect(env.delivery.delivered).toEqual([]);
    // It now answers version 2's triggers, and not version 1's.
    expect(await env.engine.applyTrigger('c1', { id: 'a1', name: 'Approve', subjects: ['c1'] })).toMatchObject({ outcome: 'noTransition' });
    expect(await env.engine.applyTrigger('c1', { id: 's1', name: 'Settle', subjects: ['c1'] })).toMatchObject({ outcome: 'transitioned', toStateId: 'paid' });
  });

  it('skips an instance already on the target version, so a run can be repeated', async () => {
    const env = await withClaims();
    await env.create('c1');
    await env.engine.addWorkflowVersion(v2, { ifMatch: '*' });
    const { request } = await env.engine.migrationsAndBulkActions.parseMigration('claim', { fromVersion: 1, toVersion: 2 });
    expect((await env.engine.migrationsAndBulkActions.migrate('c1', request)).outcome).toBe('migrated');
    const writes = env.instances.writes;

    expect(await env.engine.migrationsAndBulkActions.migrate('c1', request)).toMatchObject({ outcome: 'skipped', error: 'already on version 2' });
    expect(env.instances.writes).toBe(writes);
    expect((await env.engine.getHistory('c1')).items).toHaveLength(2);
    // An unmapped state keeps its id when the target has it: draft stays draft, with version 2's interests.
    expect(await env.engine.getInstance('c1')).toMatchObject({ stateId: 'draft', workflowVersion: 2, interests: ['Submit', 'c1', 'claims', 'claims-v2'] });
  });

  it('reports what cannot move: an unmapped state the target lacks, complete and cancelled instances; faulted ones move', async () => {
    const env = await withClaims();
    await env.create('gone');
    await env.engine.applyTrigger('gone', { id: 'g1', name: 'Submit', subjects: ['gone'] });
    await env.engine.applyTrigger('gone', { id: 'g2', name: 'Approve', subjects: ['gone'] }); // complete
    await env.create('stopped');
    await env.engine.cancel('stopped');
    await env.create('broken');
    await toReview(env, 'broken');
    // Fault it the way a failing action would, through the run loop (recovery is what repairs it).
    await env.engine.runtime.decideUnderLease(
      'broken',
      () => ({ kind: 'cancel', sequence: 0 }),
      async (stored) => ({
        result: { instanceId: 'broken', outcome: 'faulted' },
        change: {
          instance: { ...stored, status: 'faulted', fault: { message: 'boom', triggerId: null, at: stored.updatedAt }, historyLength: stored.historyLength + 1 },
          historyEntry: { sequence: stored.historyLength, at: stored.updatedAt, event: 'faulted', triggerId: null, transitionId: null, fromStateId: 'review', toStateId: 'review', status: 'faulted' },
          outbox: [],
        },
        logs: [],
      }),
    );
    await env.create('old');
    await env.engine.applyTrigger('old', { id: 'o1', name: 'Submit', subjects: ['old'] });
    await env.engine.addWorkflowVersion(v2, { ifMatch: '*' });
    const { request } = await env.engine.migrationsAndBulkActions.parseMigration('claim', { fromVersion: 1, toVersion: 2, stateMap: { review: 'checking' } });
    // `old` is moved to a state v2 lacks by hand (the v1 state `legacy`), to test the unmapped rule.
    const old = await env.engine.getInstance('old');
    await env.instances.save({ ...old, stateId: 'legacy' }, {}, { ifMatch: old.etag });

    const report = await env.engine.migrationsAndBulkActions.migrationReport(request);

    expect(report.rows).toEqual([{ fromStateId: 'review', toStateId: 'checking', count: 1, sample: ['broken'] }]);
    expect(report.blocked).toEqual(
      [
        { fromStateId: 'legacy', reason: 'state "legacy" is neither mapped nor in version 2', count: 1, sample: ['old'] },
        { fromStateId: 'paid', reason: 'status complete is not migratable', count: 1, sample: ['gone'] },
        { fromStateId: 'draft', reason: 'status cancelled is not migratable', count: 1, sample: ['stopped'] },
      ].sort((a, b) => (a.fromStateId < b.fromStateId ? -1 : 1)),
    );
    expect(await env.engine.migrationsAndBulkActions.migrate('old', request)).toMatchObject({ outcome: 'notMigratable' });
    expect(await env.engine.migrationsAndBulkActions.migrate('gone', request)).toMatchObject({ outcome: 'notMigratable', error: 'status complete is not migratable' });
    expect(await env.engine.migrationsAndBulkActions.migrate('broken', request)).toMatchObject({ outcome: 'migrated', toStateId: 'checking' });
    // Then recovered in the new version: its entry actions run now, because recovery is a transition.
    expect(await env.engine.recover('broken', 'checking')).toMatchObject({ status: 'waiting', workflowVersion: 2, context: { enteredChecking: true } });
  });

  it('refuses a request naming versions or states that do not exist, field by field', async () => {
    const env = await withClaims();
    await env.engine.addWorkflowVersion(v2, { ifMatch: '*' });
    const refused = await env.engine.migrationsAndBulkActions
      .parseMigration('claim', { fromVersion: 1, toVersion: 7, stateMap: { nope: 'checking', review: 'missing' } })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ValidationError);
    expect((refused as ValidationError).issues.map((issue) => issue.path).sort()).toEqual(['stateMap.nope', 'toVersion']);
    await expect(env.engine.migrationsAndBulkActions.parseMigration('claim', { fromVersion: 1, toVersion: 2, stateMap: { review: 'missing' } })).rejects.toMatchObject({
      issues: [{ path: 'stateMap.review' }],
    });
    await expect(env.engine.migrationsAndBulkActions.parseMigration('claim', { fromVersion: 2, toVersion: 2 })).rejects.toMatchObject({ issues: [{ path: 'toVersion' }] });
    await expect(env.engine.migrationsAndBulkActions.parseMigration('nobody', { fromVersion: 1, toVersion: 2 })).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('suspend and resume', () => {
  it('a suspended instance takes no triggers and saves nothing; resume makes it waiting; both are in the history', async () => {
    const env = await withClaims();
    await env.create('c1');
    expect(await env.engine.suspend('c1')).toMatchObject({ status: 'suspended' });
    const writes = env.instances.writes;
    expect(await env.engine.applyTrigger('c1', { id: 'x', name: 'Submit', subjects: ['c1'] })).toEqual({ instanceId: 'c1', outcome: 'notActive' });
    expect(env.instances.writes).toBe(writes);
    await expect(env.engine.suspend('c1')).rejects.toBeInstanceOf(ConflictError);
    expect(await env.engine.resume('c1')).toMatchObject({ status: 'waiting' });
    await expect(env.engine.resume('c1')).rejects.toBeInstanceOf(ConflictError);
    expect(await env.engine.applyTrigger('c1', { id: 'y', name: 'Submit', subjects: ['c1'] })).toMatchObject({ outcome: 'transitioned' });
    expect((await env.engine.getHistory('c1')).items.map((entry) => [entry.event, entry.status])).toEqual([
      ['created', 'waiting'],
      ['suspended', 'suspended'],
      ['resumed', 'waiting'],
      ['transitioned', 'waiting'],
    ]);
    await expect(env.engine.suspend('nobody')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('a suspended instance can be cancelled, not recovered', async () => {
    const env = await withClaims();
    await env.create('c1');
    await env.engine.suspend('c1');
    await expect(env.engine.recover('c1', 'draft')).rejects.toBeInstanceOf(ConflictError);
    expect(await env.engine.cancel('c1')).toMatchObject({ status: 'cancelled' });
  });
});

describe('deletion', () => {
  it('removes the instance, its history, outbox rows, index rows and lease; 404 after', async () => {
    const env = await withClaims();
    await env.create('c1');
    await env.create('c2');
    await env.engine.cancel('c1');
    expect(env.leases.exists('c1')).toBe(true);

    await env.engine.deleteInstance('c1');

    expect(env.instances.holdsAnythingOf('c1')).toBe(false);
    expect(env.interests.subjectsOf('c1')).toEqual([]);
    expect(env.leases.exists('c1')).toBe(false);
    await expect(env.engine.getInstance('c1')).rejects.toBeInstanceOf(NotFoundError);
    await expect(env.engine.deleteInstance('c1')).rejects.toBeInstanceOf(NotFoundError);
    expect((await env.engine.findCandidates(['claims'])).items).toEqual(['c2']);
  });

  it('refuses a waiting instance unless forced', async () => {
    const env = await withClaims();
    await env.create('c1');
    await expect(env.engine.deleteInstance('c1')).rejects.toBeInstanceOf(ConflictError);
    expect(await env.engine.getInstance('c1')).toMatchObject({ status: 'waiting' });
    await env.engine.deleteInstance('c1', { force: true });
    expect(env.instances.holdsAnythingOf('c1')).toBe(false);
  });

  it('a crash in the middle leaves nothing reachable, and deleting again finishes it', async () => {
    const env = await withClaims();
    await env.create('c1');
    await env.engine.cancel('c1');
    const purge = env.instances.purge.bind(env.instances);
    env.instances.purge = async () => {
      throw new Error('the process died here');
    };
    await expect(env.engine.deleteInstance('c1')).rejects.toThrow('the process died here');
    // Marked, not purged: gone for every reader, its index rows already removed.
    expect(env.instances.holdsAnythingOf('c1')).toBe(true);
    await expect(env.engine.getInstance('c1')).rejects.toBeInstanceOf(NotFoundError);
    expect((await env.engine.listInstances({ workflowId: 'claim' })).items).toEqual([]);
    expect(await env.engine.applyTrigger('c1', { id: 'late', name: 'Submit', subjects: ['c1'] })).toEqual({ instanceId: 'c1', outcome: 'notFound' });
    expect(env.interests.subjectsOf('c1')).toEqual([]);

    env.instances.purge = purge;
    await env.engine.deleteInstance('c1');
    expect(env.instances.holdsAnythingOf('c1')).toBe(false);
    expect(env.leases.exists('c1')).toBe(false);
  });

  it('a workflow with instances refuses deletion; without, every version goes', async () => {
    const env = await withClaims();
    await env.engine.addWorkflowVersion(v2, { ifMatch: '*' });
    await env.create('c1');
    await expect(env.engine.deleteWorkflow('claim')).rejects.toBeInstanceOf(ConflictError);
    await env.engine.deleteInstance('c1', { force: true });
    await env.engine.deleteWorkflow('claim');
    await expect(env.engine.getWorkflow('claim')).rejects.toBeInstanceOf(NotFoundError);
    await expect(env.engine.getWorkflow('claim', 1)).rejects.toBeInstanceOf(NotFoundError);
    await expect(env.engine.deleteWorkflow('claim')).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('bulk selection', () => {
  it('selects by state, status, subject and updatedBefore, and re-checks the filter under the lease', async () => {
    const env = await withClaims();
    await env.create('a', 'ann');
    await env.create('b', 'bob');
    env.clock.advance(60_000);
    await env.create('c', 'cat');
    await toReview(env, 'a');
    await env.engine.cancel('b');
    const select = (filter: Parameters<typeof env.engine.migrationsAndBulkActions.selectPage>[0]) => collectAll((page) => env.engine.migrationsAndBulkActions.selectPage(filter, page), 2);

    expect(await select({ workflowId: 'claim' })).toEqual(['a', 'b', 'c']);
    expect(await select({ workflowId: 'claim', stateId: 'draft' })).toEqual(['b', 'c']);
    expect(await select({ workflowId: 'claim', status: 'cancelled' })).toEqual(['b']);
    // Through the interest index: b keeps its interests when cancelled (it answers `notActive`); a left draft.
    expect(await select({ workflowId: 'claim', subject: 'claims' })).toEqual(['b', 'c']);
    // Every instance last changed at 00:01:00; then c changes a minute later.
    expect(await select({ workflowId: 'claim', updatedBefore: '2026-01-01T00:00:30.000Z' })).toEqual([]);
    env.clock.advance(60_000);
    await env.engine.suspend('c');
    await env.engine.resume('c');
    expect(await select({ workflowId: 'claim', updatedBefore: '2026-01-01T00:01:00.001Z' })).toEqual(['a', 'b']);

    // Selected in draft, but moved on before its turn: skipped, not cancelled.
    const bulk = { action: 'cancel' as const, filter: { workflowId: 'claim', stateId: 'draft' } };
    await toReview(env, 'c');
    expect(await env.engine.migrationsAndBulkActions.applyBulk('c', bulk)).toMatchObject({ outcome: 'skipped' });
    expect(await env.engine.migrationsAndBulkActions.applyBulk('b', bulk)).toMatchObject({ outcome: 'conflict', error: expect.stringContaining('cancelled') });
    expect(await env.engine.migrationsAndBulkActions.applyBulk('zzz', bulk)).toEqual({ instanceId: 'zzz', outcome: 'notFound' });
    expect(await env.engine.migrationsAndBulkActions.applyBulk('a', { action: 'suspend', filter: { workflowId: 'claim' } })).toMatchObject({ outcome: 'suspended' });
    expect(await env.engine.migrationsAndBulkActions.applyBulk('a', { action: 'resume', filter: { workflowId: 'claim' } })).toMatchObject({ outcome: 'resumed' });
    expect(await env.engine.migrationsAndBulkActions.applyBulk('b', { action: 'delete', filter: { workflowId: 'claim', status: 'cancelled' } })).toMatchObject({ outcome: 'deleted' });
    expect(env.instances.holdsAnythingOf('b')).toBe(false);
  });
});
