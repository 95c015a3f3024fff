/**
 * The report of a migration resumed after a crash (issue 42, defect 4), on the local runner with the real
 * activities over an in-memory engine, the crash simulated without a process (test/support/resumable-process.ts):
 * the first run stops mid-batch with the operation left `running`, and a second process resumes it as the
 * start-up resumption does. Before the fix, the instances the first run had migrated were offered again,
 * found on the target version and reported `skipped`. Each instance is reported once, with what really
 * happened to it: migrated (once, by this operation), skipped (it really was not to be migrated by it any
 * more), notMigratable; the totals add up to the instances. A bulk action resumed so reports what it did too.
 */
import type { WorkflowDefinitionInput } from '../../src/engine';
import { OperationStatus } from '../../src/engine/model';
import { onePage } from '../../src/engine/ports';
import type { InstanceResult, StoredOperation } from '../../src/engine/operations';
import { createInMemoryPorts } from '../../src/testing';
import { FakeClock } from '../engine/support';
import { resumableProcess, sequentialIds, until } from '../support/resumable-process';

/** Version 1 has a state `legacy` that version 2 dropped: its instances are not migratable. */
const ledger = (version: 1 | 2): WorkflowDefinitionInput => ({
  id: 'ledger',
  displayName: `Ledger ${version}`,
  initialStateId: 'open',
  states: {
    open: {
      transitions: [
        {
          id: 'bump',
          targetStateId: 'open',
          conditions: [{ type: 'triggerName', name: 'Bump' }],
          actions: [{ type: 'setContext', expressions: { b: '$exists(context.b) ? context.b + 1 : 1' } }] as never,
        },
        ...(version === 1 ? [{ id: 'retire', targetStateId: 'legacy', conditions: [{ type: 'triggerName' as const, name: 'Retire' }] }] : []),
      ],
    },
    ...(version === 1 ? { legacy: { transitions: [{ id: 'reopen', targetStateId: 'open', conditions: [{ type: 'triggerName', name: 'Reopen' }] }] } } : {}),
  },
});

const migration = { workflowId: 'ledger', fromVersion: 1, toVersion: 2, stateMap: {} };

describe('a migration resumed after a crash', () => {
  jest.setTimeout(60_000);

  it.each([
    // One batch, the whole operation and small: its results go with the completion.
    ['40 instances, results kept with the completion', 40],
    // One batch of more than the completion keeps: a result row each.
    ['160 instances, a result row each', 160],
  ])('reports each instance once with what really happened (%s), and migrates none twice', async (_shape, count) => {
    const ports = createInMemoryPorts();
    const clock = new FakeClock();
    const all = sequentialIds(count, 'm-');
    const half = all[count / 2]!;
    const legacy = all.slice(-5);
    const elsewhere = all[count / 2 + 2]!;
    // The first process stops with the second half in flight or not yet offered.
    const first = resumableProcess(ports, clock, (instanceId) => instanceId >= half);
    await first.engine.createWorkflow(ledger(1));
    for (const instanceId of all) await first.engine.createInstance({ workflowId: 'ledger', instanceId });
    for (const instanceId of legacy) await first.engine.applyTrigger(instanceId, { id: `retire-${instanceId}`, name: 'Retire', subjects: [instanceId] });
    await first.engine.addWorkflowVersion(ledger(2), { ifMatch: '*' });

    const operation: StoredOperation = await first.submitter.submitWork({ migration });
    const migratedBefore = all.filter((id) => id < half);
    await until(async () => first.offered.includes(half) && (await Promise.all(migratedBefore.map(async (id) => (await first.engine.getInstance(id)).workflowVersion === 2))).every(Boolean));
    expect((await ports.operations.get(operation.id))!.status).toBe(OperationStatus.running);

    // While no process runs it: one instance the first run migrated changes again, and one it had not
    // reached is migrated by another operation (so this one really skips it).
    await first.engine.applyTrigger(all[0]!, { id: 'bump-after', name: 'Bump', subjects: [all[0]!] });
    expect((await first.engine.migrationsAndBulkActions.migrate(elsewhere, migration, { operationId: 'another-migration' })).outcome).toBe('migrated');

    const second = resumableProcess(ports, clock);
    expect(await second.runner.resumeUnfinished(ports.operations)).toBe(1);
    await second.runner.whenDone(operation.id);
    await second.runner.stop();
    // The second process offered again some the first had migrated (the crash came before their checkpoint).
    expect(second.offered.some((id) => migratedBefore.includes(id))).toBe(true);

    const finished = (await ports.operations.get(operation.id))!;
    const expected = new Map(all.map((id) => [id, legacy.includes(id) ? 'notMigratable' : id === elsewhere ? 'skipped' : 'migrated']));
    expect(finished).toMatchObject({
      status: OperationStatus.succeeded,
      candidates: count,
      summary: { migrated: count - legacy.length - 1, skipped: 1, notMigratable: legacy.length, failed: 0 },
    });
    expect(Object.values(finished.summary).reduce((sum, n) => sum + n, 0)).toBe(count);
    // Every instance's result, from the completion or its result row: once each, with its real outcome.
    const kept = finished.instances.length > 0 ? finished.instances : (await onePage(ports.operations.listResults(operation.id), { maxPageSize: 1000 })).items;
    const reported = kept.map((result: InstanceResult) => [result.instanceId, result.outcome]).sort();
    expect(reported).toEqual([...expected.entries()].sort());
    expect(kept.find((result) => result.instanceId === all[0])).toMatchObject({ outcome: 'migrated', fromStateId: 'open', toStateId: 'open' });
    expect(kept.find((result) => result.instanceId === elsewhere)).toMatchObject({ outcome: 'skipped', error: 'already on version 2' });

    // Migrated once: one `migrated` entry each, made by the operation that moved it.
    for (const instanceId of all.filter((id) => !legacy.includes(id))) {
      const migrations = (await second.engine.getHistory(instanceId, { maxPageSize: 100 })).items.filter((entry) => entry.event === 'migrated');
      expect(migrations.map((entry) => entry.operationId)).toEqual([instanceId === elsewhere ? 'another-migration' : operation.id]);
    }
  });
});

describe('a bulk action resumed after a crash', () => {
  jest.setTimeout(60_000);

  it('reports each instance once with what it did to it (suspended), though it no longer matches the filter, and suspends none twice', async () => {
    const ports = createInMemoryPorts();
    const clock = new FakeClock();
    const all = sequentialIds(40, 'b-');
    const half = all[20]!;
    const first = resumableProcess(ports, clock, (instanceId) => instanceId >= half);
    await first.engine.createWorkflow(ledger(1));
    for (const instanceId of all) await first.engine.createInstance({ workflowId: 'ledger', instanceId });

    const operation: StoredOperation = await first.submitter.submitWork({ bulk: { action: 'suspend', filter: { workflowId: 'ledger', status: 'waiting' } } });
    const suspendedBefore = all.filter((id) => id < half);
    await until(async () => first.offered.includes(half) && (await Promise.all(suspendedBefore.map(async (id) => (await first.engine.getInstance(id)).status === 'suspended'))).every(Boolean));

    const second = resumableProcess(ports, clock);
    expect(await second.runner.resumeUnfinished(ports.operations)).toBe(1);
    await second.runner.whenDone(operation.id);
    await second.runner.stop();
    expect(second.offered.some((id) => suspendedBefore.includes(id))).toBe(true);

    const finished = (await ports.operations.get(operation.id))!;
    expect(finished).toMatchObject({ status: OperationStatus.succeeded, candidates: 40, summary: { suspended: 40, skipped: 0, conflict: 0 } });
    expect(finished.instances.map((result) => [result.instanceId, result.outcome, result.fromStateId])).toEqual(all.map((id) => [id, 'suspended', 'open']));
    for (const instanceId of all) expect((await second.engine.getHistory(instanceId)).items.filter((entry) => entry.event === 'suspended')).toHaveLength(1);
  });
});
