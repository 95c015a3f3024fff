/**
 * In-memory OperationActivities for the orchestrator tests: candidates come from a list (duplicates
 * allowed, to exercise de-duplication across pages), pages of a chosen size, and every call is
 * recorded. Not a storage fake: the storage-backed activities are exercised against Azurite.
 */
import { TriggerOutcome } from '../../src/engine/model';
import type { AppliedOutcome, InstanceResult } from '../../src/engine/operations';
import type {
  ApplyOperationInput,
  BeginOperationInput,
  BeginOperationOutput,
  CompleteOperationInput,
  FindCandidatesInput,
  FindCandidatesOutput,
  RecordProgressInput,
  OperationActivities,
} from '../../src/host/contracts/operation-activities';
import type { ActivityFunction } from '../support/durable-replay';

export interface FakeOperationActivitiesOptions {
  /** Candidate ids in index order; an id may repeat (it matches several subjects). */
  readonly candidates: readonly string[];
  readonly pageSize: number;
  /** @default true */
  readonly shouldRun?: boolean;
  /** @default every instance transitions */
  readonly outcomeFor?: (instanceId: string) => InstanceResult;
  /** What beginOperation hands a run that resumes an earlier one's checkpoint. */
  readonly resume?: BeginOperationOutput['resume'];
}

export class FakeOperationActivities implements OperationActivities {
  readonly begun: string[] = [];
  readonly pagesRead: FindCandidatesInput[] = [];
  readonly applied = new Map<string, number>();
  readonly completions: CompleteOperationInput[] = [];
  readonly progress: RecordProgressInput[] = [];
  /** The results the applications stored (as OperationStore.putResult would), by instance. */
  readonly results = new Map<string, InstanceResult>();

  constructor(private readonly options: FakeOperationActivitiesOptions) {}

  async beginOperation(input: BeginOperationInput): Promise<BeginOperationOutput> {
    this.begun.push(typeof input === 'string' ? input : input.operationId);
    return { subjects: ['order:1'], shouldRun: this.options.shouldRun ?? true, ...(this.options.resume ? { resume: this.options.resume } : {}) };
  }

  async findCandidates(input: FindCandidatesInput): Promise<FindCandidatesOutput> {
    this.pagesRead.push(input);
    const start = input.continuationToken === undefined ? 0 : Number(input.continuationToken);
    const end = start + Math.min(this.options.pageSize, input.maxPageSize ?? Infinity);
    const instanceIds = this.options.candidates.slice(start, end);
    return end < this.options.candidates.length ? { instanceIds, continuationToken: String(end) } : { instanceIds };
  }

  /** As the real activity: the result is stored and the outcome answered, or with `keepResult` both answered. */
  async applyOperation({ instanceId, keepResult }: ApplyOperationInput): Promise<AppliedOutcome> {
    this.applied.set(instanceId, (this.applied.get(instanceId) ?? 0) + 1);
    const result = this.options.outcomeFor?.(instanceId) ?? { instanceId, outcome: TriggerOutcome.transitioned, transitionId: 'submit', fromStateId: 'draft', toStateId: 'submitted' };
    if (keepResult) return { outcome: result.outcome, result };
    this.results.set(instanceId, result);
    return { outcome: result.outcome };
  }

  async completeOperation(input: CompleteOperationInput): Promise<void> {
    this.completions.push(input);
  }

  async recordProgress(input: RecordProgressInput): Promise<void> {
    this.progress.push(input);
  }
}

/** The activity functions as the durable app registers them, over any OperationActivities. */
export function activityFunctions(activities: OperationActivities): Record<string, ActivityFunction> {
  return {
    beginOperation: (input: BeginOperationInput) => activities.beginOperation(input),
    findCandidates: (input: FindCandidatesInput) => activities.findCandidates(input),
    applyTrigger: (input: ApplyOperationInput) => activities.applyOperation(input),
    completeOperation: (input: CompleteOperationInput) => activities.completeOperation(input),
    recordProgress: (input: RecordProgressInput) => activities.recordProgress(input),
  };
}

/** `count` ids `i0000`, `i0001`, ... */
export function instanceIds(count: number, prefix = 'i'): string[] {
  return Array.from({ length: count }, (_, index) => `${prefix}${String(index).padStart(4, '0')}`);
}
