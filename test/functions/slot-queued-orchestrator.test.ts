/**
 * A trigger answered queued for a concurrency slot (decision 0025), on Azure: the orchestrators wait with a
 * durable timer, fire time from the orchestration's clock, and call the activity again, at most MAX_SLOT_TRIES
 * times, then report the trigger failed naming its key. Run by the real durable-functions replay engine
 * (test/support/durable-replay.ts) over in-memory activities; the activity itself is tested on Azurite
 * (slot-queued-activity.azurite.test.ts).
 */
import { APPLY_OPERATION_BATCH, applyOperationBatch } from '../../functions/apply-operation-batch';
import { OPERATION_ORCHESTRATOR, operationOrchestrator, type OperationOrchestratorInput } from '../../functions/operation-orchestrator';
import {
  MAX_SLOT_TRIES,
  slotTryIntervalInMs,
  type ApplyOperationAnswer,
  type ApplyOperationInput,
  type BeginOperationInput,
  type CompleteOperationInput,
  type FindCandidatesInput,
  type OperationActivities,
  type RecordProgressInput,
} from '../../src/host/contracts/operation-activities';
import { EventType, runOrchestration, type HistoryEventRecord } from '../support/durable-replay';
import { FakeOperationActivities, activityFunctions } from './fake-operation-activities';

// Registration needs the Functions host; a stand-in keeps @azure/functions quiet (it only records).
jest.mock('@azure/functions-core', () => ({ registerFunction: jest.fn(), setProgrammingModel: jest.fn() }), { virtual: true });

const orchestrators = { [OPERATION_ORCHESTRATOR]: operationOrchestrator, [APPLY_OPERATION_BATCH]: applyOperationBatch };

/** Answers `queued` for the instances in `queuedTries` that many times, then applies them as the fake does. */
class QueueingActivities implements OperationActivities {
  readonly inputs: ApplyOperationInput[] = [];
  readonly fake: FakeOperationActivities;
  private readonly queuedLeft: Map<string, number>;

  constructor(candidates: readonly string[], queuedTries: Record<string, number>) {
    this.fake = new FakeOperationActivities({ candidates, pageSize: 500 });
    this.queuedLeft = new Map(Object.entries(queuedTries));
  }

  beginOperation = (input: BeginOperationInput) => this.fake.beginOperation(input);
  findCandidates = (input: FindCandidatesInput) => this.fake.findCandidates(input);
  completeOperation = (input: CompleteOperationInput) => this.fake.completeOperation(input);
  recordProgress = (input: RecordProgressInput) => this.fake.recordProgress(input);

  async applyOperation(input: ApplyOperationInput): Promise<ApplyOperationAnswer> {
    this.inputs.push(input);
    const left = this.queuedLeft.get(input.instanceId) ?? 0;
    if (left > 0) {
      this.queuedLeft.set(input.instanceId, left - 1);
      return { queued: { detail: 'queued: customer:1 at 1/1', queue: { workflowId: 'orders', key: 'customer:1' } } };
    }
    return this.fake.applyOperation(input);
  }

  get completions() {
    return this.fake.completions;
  }

  get results() {
    return this.fake.results;
  }

  triesOf(instanceId: string): number {
    return this.inputs.filter((input) => input.instanceId === instanceId).length;
  }
}

function run(fake: OperationActivities, input: Partial<OperationOrchestratorInput> = {}) {
  return runOrchestration(OPERATION_ORCHESTRATOR, { operationId: 'op-1', ...input }, 'op-1', { orchestrators, activities: activityFunctions(fake) });
}

/** How long after its creation each durable timer of the history fires. */
function timerWaitsInMs(history: readonly HistoryEventRecord[]): number[] {
  return history.filter((event) => event.EventType === EventType.TimerCreated).map((event) => Date.parse(event.FireAt as string) - new Date(event.Timestamp).getTime());
}

describe('a trigger queued for a concurrency slot on Azure', () => {
  it('is tried again after durable timers in a batch, and applied once when a try finds its slot', async () => {
    const fake = new QueueingActivities(['i1', 'i2', 'i3'], { i2: 3 });

    const result = await run(fake);

    expect(result.status).toBe('completed');
    // Every try asks for the answer at once rather than a wait in place under the lease.
    expect(fake.inputs.every((input) => input.parkWhenQueued === true)).toBe(true);
    expect([fake.triesOf('i1'), fake.triesOf('i2'), fake.triesOf('i3')]).toEqual([1, 4, 1]);
    const [batch] = result.subOrchestrations;
    expect(timerWaitsInMs(batch!.history)).toEqual([slotTryIntervalInMs(1), slotTryIntervalInMs(2), slotTryIntervalInMs(3)]);
    expect(slotTryIntervalInMs(1)).toBeLessThan(slotTryIntervalInMs(3));
    const completion = fake.completions[0]!;
    expect(completion.error).toBeUndefined();
    expect(completion.summary.transitioned).toBe(3);
    expect([...fake.results.keys()].sort()).toEqual(['i1', 'i2', 'i3']);
  });

  it('is tried again on the direct path of an operation of one instance, its kept result recorded', async () => {
    const fake = new QueueingActivities(['i1'], { i1: 2 });

    const result = await run(fake, { applyOneInstanceDirectly: true });

    expect(result.status).toBe('completed');
    expect(result.subOrchestrations).toEqual([]);
    expect(fake.triesOf('i1')).toBe(3);
    expect(timerWaitsInMs(result.history)).toEqual([slotTryIntervalInMs(1), slotTryIntervalInMs(2)]);
    const completion = fake.completions[0]!;
    expect(completion.error).toBeUndefined();
    expect(completion.summary.transitioned).toBe(1);
    expect(completion.instances.map((instance) => instance.instanceId)).toEqual(['i1']);
  });

  it('is reported failed, naming its key, after the most tries, and the other instances are still counted', async () => {
    const fake = new QueueingActivities(['i1', 'i2'], { i2: Number.POSITIVE_INFINITY });

    const result = await run(fake);

    expect(result.status).toBe('completed');
    expect(fake.triesOf('i2')).toBe(MAX_SLOT_TRIES);
    expect(timerWaitsInMs(result.subOrchestrations[0]!.history)).toHaveLength(MAX_SLOT_TRIES - 1);
    const completion = fake.completions[0]!;
    expect(completion.error).toContain(`instance "i2": no concurrency slot of key "customer:1" after ${MAX_SLOT_TRIES} tries`);
    expect(completion.summary.transitioned).toBe(1);
    expect(fake.results.has('i2')).toBe(false);
  });
});
