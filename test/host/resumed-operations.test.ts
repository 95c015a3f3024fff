/**
 * Operations resumed after a crash (issue 22, groups 2 and 9), on the local runner with the real
 * activities over an in-memory engine. The crash is simulated as crash-recovery.test.ts does it, without
 * a process: the first run is left hanging mid-page (its applications never return, as in a process that
 * died), and a second runner over the same stores resumes the operation from its stored record.
 * Before the fix a resumed run started again from its first page: it offered the trigger again to every
 * instance it had reached, and a migration reported only the instances still to migrate.
 */
import { Engine, type WorkflowDefinitionInput } from '../../src/engine';
import { OperationStatus } from '../../src/engine/model';
import { onePage } from '../../src/engine/ports';
import type { StoredOperation } from '../../src/engine/operations';
import { createInMemoryPorts } from '../../src/testing';
import { FakeClock } from '../engine/support';
import { resumableProcess, sequentialIds, until } from '../support/resumable-process';

const counter = (version: string): WorkflowDefinitionInput => ({
  id: 'counter',
  displayName: `Counter ${version}`,
  initialStateId: 'on',
  states: {
    on: {
      interests: ['all'],
      transitions: [
        {
          id: 'bump',
          targetStateId: 'on',
          conditions: [{ type: 'triggerName', name: 'Bump' }],
          actions: [{ type: 'setContext', expressions: { b: '$exists(context.b) ? context.b + 1 : 1' } }] as never,
        },
        { id: 'tick', targetStateId: 'on', conditions: [{ type: 'triggerName', name: 'Tick' }] },
      ],
    },
  },
});

async function createInstances(engine: Engine, ids: readonly string[]): Promise<void> {
  for (const instanceId of ids) await engine.createInstance({ workflowId: 'counter', instanceId });
}

const ids = sequentialIds;
const process = resumableProcess;

describe('an operation resumed after a crash', () => {
  jest.setTimeout(60_000);

  it('offers no instance of a page it finished again, and applies the trigger once to a-hot after 200 other triggers (801 instances)', async () => {
    const ports = createInMemoryPorts();
    const clock = new FakeClock();
    const others = ids(800, 'b-');
    // Page 1 (500 instances, a-hot first) finishes; page 2 is in flight when the process dies.
    const first = process(ports, clock, (instanceId) => instanceId >= 'b-0600');
    await first.engine.createWorkflow(counter('1'));
    await createInstances(first.engine, ['a-hot', ...others]);

    await first.submitter.submit({ id: 'bcast-1', name: 'Bump', subjects: ['all'] });
    await until(() => first.offered.includes('b-0600'));
    for (let index = 0; index < 200; index++) await first.engine.applyTrigger('a-hot', { id: `other-${index}`, name: 'Tick', subjects: ['a-hot'] });
    const stored = (await ports.operations.get('bcast-1'))!;
    expect(stored.status).toBe(OperationStatus.running);

    // The restart: a new process resumes what the dead one left running.
    const second = process(ports, clock);
    expect(await second.runner.resumeUnfinished(ports.operations)).toBe(1);
    await second.runner.whenDone('bcast-1');

    expect(second.offered).not.toContain('a-hot');
    expect(second.offered.filter((id) => id < 'b-0499')).toEqual([]);
    const hot = await second.engine.getInstance('a-hot');
    expect(hot.context.b).toBe(1);
    const history = await second.engine.getHistory('a-hot', { maxPageSize: 1000 });
    expect(history.items.filter((entry) => entry.triggerId === 'bcast-1')).toHaveLength(1);
    const operation = (await ports.operations.get('bcast-1'))!;
    expect(operation).toMatchObject({ status: OperationStatus.succeeded, candidates: 801, summary: { transitioned: 801, duplicate: 0 } });
    expect(operation.checkpoint).toBeUndefined();
    for (const instanceId of ['b-0000', 'b-0499', 'b-0600', 'b-0799']) expect((await second.engine.getInstance(instanceId)).context.b).toBe(1);
  });

  it.each([
    ['one instance', 1],
    ['three instances', 3],
  ])('an operation of one batch (%s) keeps its results in its completion: interrupted mid-batch, it reports each instance once, with what it did, and writes no result row', async (_shape, count) => {
    const ports = createInMemoryPorts();
    const clock = new FakeClock();
    const all = ids(count, 'k-');
    const last = all[all.length - 1]!;
    const first = process(ports, clock, (instanceId) => instanceId === last);
    await first.engine.createWorkflow(counter('1'));
    await createInstances(first.engine, all);
    await first.submitter.submit({ id: 'kept-1', name: 'Bump', subjects: ['all'] });
    // Every other instance applied (and saved), the last one in flight when the process stops.
    await until(async () => first.offered.includes(last) && (await Promise.all(all.slice(0, -1).map(async (id) => (await first.engine.getInstance(id)).context.b === 1))).every(Boolean));

    const second = process(ports, clock);
    expect(await second.runner.resumeUnfinished(ports.operations)).toBe(1);
    await second.runner.whenDone('kept-1');

    const finished = (await ports.operations.get('kept-1'))!;
    expect(finished).toMatchObject({ status: OperationStatus.succeeded, candidates: count, summary: { transitioned: count, duplicate: 0 } });
    expect(finished.instances.map((result) => [result.instanceId, result.outcome])).toEqual(all.map((id) => [id, 'transitioned']));
    for (const id of all) expect((await second.engine.getInstance(id)).context.b).toBe(1);
    expect((await onePage(ports.operations.listResults('kept-1'))).items).toEqual([]);
  });

  it('a batch stores its results together after its last instance: interrupted before, the resumed run stores each once, with what it did', async () => {
    const ports = createInMemoryPorts();
    const clock = new FakeClock();
    // 150 instances: one batch, the whole operation but more than the completion keeps, so a row each.
    const all = ids(150, 's-');
    const last = all[all.length - 1]!;
    const first = process(ports, clock, (instanceId) => instanceId === last);
    await first.engine.createWorkflow(counter('1'));
    await createInstances(first.engine, all);
    await first.submitter.submit({ id: 'stored-1', name: 'Bump', subjects: ['all'] });
    await until(async () => first.offered.includes(last) && (await Promise.all(all.slice(0, -1).map(async (id) => (await first.engine.getInstance(id)).context.b === 1))).every(Boolean));
    // 149 applied and saved, none of their results stored yet: the batch stores them once its last has answered.
    expect((await onePage(ports.operations.listResults('stored-1'))).items).toEqual([]);

    const second = process(ports, clock);
    expect(await second.runner.resumeUnfinished(ports.operations)).toBe(1);
    await second.runner.whenDone('stored-1');

    expect((await ports.operations.get('stored-1'))!).toMatchObject({ status: OperationStatus.succeeded, candidates: 150, summary: { transitioned: 150, duplicate: 0 } });
    const results = (await onePage(ports.operations.listResults('stored-1'), { maxPageSize: 1000 })).items;
    expect(results.map((result) => [result.instanceId, result.outcome]).sort()).toEqual(all.map((id) => [id, 'transitioned']));
    for (const id of all) expect((await second.engine.getInstance(id)).context.b).toBe(1);
  });

  it('a migration of 1,500 instances reports every instance it processed, across the restart', async () => {
    const ports = createInMemoryPorts();
    const clock = new FakeClock();
    const all = ids(1500, 'm-');
    const first = process(ports, clock, (instanceId) => instanceId >= 'm-1200');
    await first.engine.createWorkflow(counter('1'));
    await createInstances(first.engine, all);
    await first.engine.addWorkflowVersion(counter('2'), { ifMatch: '*' });
    const operation: StoredOperation = await first.submitter.submitWork({ migration: { workflowId: 'counter', fromVersion: 1, toVersion: 2, stateMap: {} } });
    await until(() => first.offered.includes('m-1200'));

    const second = process(ports, clock);
    expect(await second.runner.resumeUnfinished(ports.operations)).toBe(1);
    await second.runner.whenDone(operation.id);

    const finished = (await ports.operations.get(operation.id))!;
    expect(finished.status).toBe(OperationStatus.succeeded);
    expect(finished.candidates).toBe(1500);
    // Those of the page in flight at the crash that it had already migrated are offered again and reported
    // migrated, as they were (issue 42: they were reported `skipped`); test/host/resumed-migrations.test.ts has more.
    expect(finished.summary).toMatchObject({ migrated: 1500, skipped: 0 });
    expect(second.offered.filter((id) => id < 'm-0999')).toEqual([]);
  });
});
