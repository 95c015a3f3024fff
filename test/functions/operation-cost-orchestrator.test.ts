/**
 * Decision 0021 on Azure: the operation orchestrator, run by the real durable-functions replay engine,
 * carries what each activity answers it cost to the completion (begin, pages, progress records as its
 * overhead; each application's under its workflow), and counts the durable activities from its own plan:
 * one per application (counted by the batch that scheduled it), and begin, every read, every record
 * and the completion itself.
 */
import { APPLY_OPERATION_BATCH, applyOperationBatch } from '../../functions/apply-operation-batch';
import { OPERATION_ORCHESTRATOR, operationOrchestrator } from '../../functions/operation-orchestrator';
import { emptyCost, type AppliedOutcome, type OperationCost } from '../../src/engine/operations';
import type { ApplyOperationInput, BeginOperationInput, BeginOperationOutput, FindCandidatesInput, FindCandidatesOutput, RecordProgressInput } from '../../src/host/contracts/operation-activities';
import { runOrchestration } from '../support/durable-replay';
import { FakeOperationActivities, activityFunctions, instanceIds } from './fake-operation-activities';

jest.mock('@azure/functions-core', () => ({ registerFunction: jest.fn(), setProgrammingModel: jest.fn() }), { virtual: true });

const orchestrators = { [OPERATION_ORCHESTRATOR]: operationOrchestrator, [APPLY_OPERATION_BATCH]: applyOperationBatch };

const reads = (tableQuery: number): OperationCost => ({ ...emptyCost(), storage: { ...emptyCost().storage, tableQuery } });
const writes = (tableWrite: number, blobLease = 0): OperationCost => ({ ...emptyCost(), storage: { ...emptyCost().storage, tableWrite, blobLease } });

/** Answers costs as functions/activities.ts adds them: each instance's application under its workflow (`a…` or `b…`). */
class CostingActivities extends FakeOperationActivities {
  override async beginOperation(input: BeginOperationInput): Promise<BeginOperationOutput> {
    return { ...(await super.beginOperation(input)), cost: reads(1) };
  }
  override async findCandidates(input: FindCandidatesInput): Promise<FindCandidatesOutput> {
    return { ...(await super.findCandidates(input)), cost: reads(1) };
  }
  override async applyOperation(input: ApplyOperationInput): Promise<AppliedOutcome> {
    return { ...(await super.applyOperation(input)), cost: writes(1, 2), workflowId: Number(input.instanceId.slice(1)) % 2 ? 'odd' : 'even' };
  }
  override async recordProgress(input: RecordProgressInput): Promise<never> {
    await super.recordProgress(input);
    return { cost: writes(1) } as never;
  }
}

describe('the cost of an operation on Azure', () => {
  it('reaches the completion: the activities of its plan, their overhead, and each application under its workflow', async () => {
    const fake = new CostingActivities({ candidates: instanceIds(120), pageSize: 500 });
    const result = await runOrchestration(OPERATION_ORCHESTRATOR, { operationId: 'op-cost' }, 'op-cost', { orchestrators, activities: activityFunctions(fake) });
    expect(result.status).toBe('completed');
    const completion = fake.completions[0]!;
    const pages = fake.pagesRead.length;
    const records = fake.progress.length;
    expect(pages).toBeGreaterThan(1);
    expect(records).toBeGreaterThan(0);
    // Begin, every page, every record, and the completion itself.
    expect(completion.overhead).toEqual({ ...emptyCost(), storage: { ...emptyCost().storage, tableQuery: 1 + pages, tableWrite: records }, activities: 1 + pages + records + 1 });
    // 60 instances of each workflow, each an activity of its batch.
    expect(completion.costByWorkflow).toEqual({ odd: { ...writes(60, 120), activities: 60 }, even: { ...writes(60, 120), activities: 60 } });
  });

  it('adds what the submitting process sent, named in its input', async () => {
    const fake = new CostingActivities({ candidates: instanceIds(2), pageSize: 500 });
    await runOrchestration(OPERATION_ORCHESTRATOR, { operationId: 'op-sub', submitted: writes(1) }, 'op-sub', { orchestrators, activities: activityFunctions(fake) });
    const overhead = fake.completions[0]!.overhead!;
    expect(overhead.storage.tableWrite).toBe(1 + fake.progress.length);
  });

  it('counts an application run directly in the orchestration as an activity too', async () => {
    const fake = new CostingActivities({ candidates: instanceIds(1), pageSize: 500 });
    await runOrchestration(OPERATION_ORCHESTRATOR, { operationId: 'op-one', applyOneInstanceDirectly: true }, 'op-one', { orchestrators, activities: activityFunctions(fake) });
    const completion = fake.completions[0]!;
    expect(completion.costByWorkflow).toEqual({ even: { ...writes(1, 2), activities: 1 } });
    expect(completion.overhead?.activities).toBe(1 + fake.pagesRead.length + fake.progress.length + 1);
  });
});
