/**
 * One "process" of the local host for crash tests without a process (test/host/resumed-operations.test.ts,
 * test/host/resumed-migrations.test.ts): an engine over shared in-memory stores (with leases of its own: a
 * dead process's leases expire), the real operation activities and a local runner. Applications to the
 * instances `stuck` names never return, as in a process that died mid-page; a second process over the
 * same stores resumes the operation from its stored record, as the start-up resumption does.
 */
import { Engine } from '../../src/engine';
import { LocalOperationRunner } from '../../src/host/local/local-operation-runner';
import { silentLogger } from '../../src/host/local/logger';
import { TriggerSubmitter } from '../../src/host/trigger-submitter';
import { OperationActivityService, OperationWorkCache } from '../../src/host/operation-activity-service';
import type { InProcessOperationActivities } from '../../src/host/contracts/operation-activities';
import { InMemoryLeaseProvider, type createInMemoryPorts } from '../../src/testing';
import type { FakeClock } from '../engine/support';

export type InMemoryPorts = ReturnType<typeof createInMemoryPorts>;

export function resumableProcess(ports: InMemoryPorts, clock: FakeClock, stuck: (instanceId: string) => boolean = () => false) {
  const offered: string[] = [];
  const engine = new Engine(
    { ...ports, leases: new InMemoryLeaseProvider() },
    {
      clock,
      newId: (() => {
        let n = 0;
        return () => `gen-${clock.now().getTime()}-${++n}`;
      })(),
    },
  );
  let service!: OperationActivityService;
  const runner = new LocalOperationRunner(
    silentLogger,
    (launcher) => {
      service = new OperationActivityService({
        engine: engine.withDelivery({ trigger: async (row) => void (await submitter.submit(row.payload)), timer: async () => undefined }),
        operations: ports.operations,
        operationWorkCache: new OperationWorkCache(),
        logger: silentLogger,
        now: clock.now,
      });
      const activities: InProcessOperationActivities = {
        beginOperation: (input) => service.beginOperation(input),
        findCandidates: (input) => service.findCandidates(input),
        recordProgress: (input) => service.recordProgress(input),
        completeOperation: (input) => service.completeOperation(input),
        storeResults: (input) => service.storeResults(input),
        applyOperation: (input) => {
          offered.push(input.instanceId);
          return stuck(input.instanceId) ? new Promise(() => undefined) : service.applyOperation(input);
        },
      };
      void launcher;
      return activities;
    },
    { concurrency: 4, now: clock.now, retryPolicy: { firstRetryIntervalInMs: 1 } },
  );
  const submitter = new TriggerSubmitter(ports.operations, runner, clock.now, () => 'unused');
  return { engine, runner, submitter, offered };
}

/** Polls `check` (every 10 ms, at most 2,000 times) until it holds; fails the test if it never does. */
export async function until(check: () => boolean | Promise<boolean>): Promise<void> {
  for (let poll = 0; poll < 2000 && !(await check()); poll++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(await check()).toBe(true);
}

/** `count` ids `<prefix>0000`, `<prefix>0001`, ... (sorted as the stores list them). */
export const sequentialIds = (count: number, prefix: string): string[] => Array.from({ length: count }, (_, index) => `${prefix}${String(index).padStart(4, '0')}`);
