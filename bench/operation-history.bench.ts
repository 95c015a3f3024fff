/**
 * `npm run bench:operation-history`: the durable history of one operation over BENCH_INSTANCES (default
 * 1,000) instances, run by the real durable-functions replay engine (test/support/durable-replay.ts) over
 * in-memory activities whose results look like a trigger's (a transition and a one-condition trace),
 * stored by the application and answered as an outcome, as the real activity does. Prints the bytes of
 * the replay history (JSON of every history event) of the orchestrator and of its batch
 * sub-orchestrations, and how many events, for the operation run both ways (in batches, and with
 * `applyOneInstanceDirectly`, which changes only an operation of one instance); asserts nothing. Issue 23 §1: 1,330,851 bytes while results
 * travelled through history, 453,266 since (docs/decisions/0015-operation-results-out-of-history.md).
 */
import { TriggerOutcome } from '../src/engine/model';
import { APPLY_OPERATION_BATCH, applyOperationBatch } from '../functions/apply-operation-batch';
import { OPERATION_ORCHESTRATOR, operationOrchestrator } from '../functions/operation-orchestrator';
import { runOrchestration } from '../test/support/durable-replay';
import { FakeOperationActivities, activityFunctions, instanceIds } from '../test/functions/fake-operation-activities';
import { loadAverage, runBench } from './support/bench-support';

const INSTANCES = Number(process.env.BENCH_INSTANCES ?? 1000);

async function main(): Promise<void> {
  const fake = () =>
    new FakeOperationActivities({
      candidates: instanceIds(INSTANCES),
      pageSize: 500,
      outcomeFor: (instanceId) => ({
        instanceId,
        outcome: TriggerOutcome.transitioned,
        transitionId: 'approve',
        fromStateId: 'submitted',
        toStateId: 'approved',
        trace: [{ path: 'states.submitted.transitions[0].conditions[0]', type: 'triggerName', result: true }] as never,
      }),
    });
  const orchestrators = { [OPERATION_ORCHESTRATOR]: operationOrchestrator, [APPLY_OPERATION_BATCH]: applyOperationBatch };
  const bytes = (history: readonly unknown[]) => Buffer.byteLength(JSON.stringify(history));
  // Both ways an operation of one instance runs, one after the other in this process: in a batch
  // sub-orchestration (orchestrations started before applyOneInstanceDirectly) and directly (as started now).
  for (const applyOneInstanceDirectly of [false, true]) {
    const input = { operationId: 'op-bench', ...(applyOneInstanceDirectly ? { applyOneInstanceDirectly } : {}) };
    const result = await runOrchestration(OPERATION_ORCHESTRATOR, input, 'op-bench', { orchestrators, activities: activityFunctions(fake()) });
    const parent = bytes(result.history);
    const batches = result.subOrchestrations.reduce((sum, sub) => sum + bytes(sub.history), 0);
    const events = result.history.length + result.subOrchestrations.reduce((sum, sub) => sum + sub.history.length, 0);
    console.log(
      JSON.stringify(
        {
          instances: INSTANCES,
          applyOneInstanceDirectly,
          status: result.status,
          orchestratorHistoryBytes: parent,
          batchHistoryBytes: batches,
          totalHistoryBytes: parent + batches,
          historyEvents: events,
          loadAverage: loadAverage(),
        },
        null,
        2,
      ),
    );
  }
}

runBench(main);
