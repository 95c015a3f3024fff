/**
 * @module The decisions of operations the local runner resumed at start-up, marked for the poison rule
 * (operation-resumption.ts): which operations were resumed and from which store, and each application of
 * theirs run inside a deciding scope (deciding-scope.ts) that marks it on the operation's record under the
 * instance's lease. Operations started in this process write no marks: their applications run as they are.
 */
import { randomUUID } from 'node:crypto';
import type { AppliedOutcome } from '../../engine/operations';
import type { OperationStore } from '../../engine/ports';
import type { Logger } from '../operation-activity-service';
import { decideWithin } from './deciding-scope';
import { PoisonOperationError, beginDeciding, endDeciding } from './operation-resumption';

export class ResumedDecisions {
  private readonly resumed = new Set<string>();
  private resumedFrom?: OperationStore;
  /** This process, in the tokens of its decisions' marks. */
  private readonly processToken = randomUUID();
  private decisions = 0;

  constructor(
    private readonly logger: Logger,
    private readonly now: () => Date,
  ) {}

  /** Marks the decisions of `operationId`, resumed from `operations`, from now on. */
  resume(operations: OperationStore, operationId: string): void {
    this.resumedFrom = operations;
    this.resumed.add(operationId);
  }

  /**
   * Runs `apply` (one application of `operationId` to `instanceId`); a resumed operation's is marked on its
   * record while it decides, under the instance's lease. One found poison there decides nothing and fails its
   * operation (PoisonOperationError).
   */
  async decide(operationId: string, instanceId: string, apply: () => Promise<AppliedOutcome>): Promise<AppliedOutcome> {
    const operations = this.resumedFrom;
    if (!operations || !this.resumed.has(operationId)) return apply();
    const token = `${this.processToken}:${++this.decisions}`;
    let poison: PoisonOperationError | undefined;
    const outcome = await decideWithin(
      {
        instanceId,
        begin: () =>
          beginDeciding(operations, operationId, instanceId, token, this.logger, this.now()).catch((error: unknown) => {
            if (error instanceof PoisonOperationError) poison = error;
            throw error;
          }),
        // A mark left by a storage fault costs at most one strike it did not earn: logged, the decision's outcome kept.
        end: (decided) =>
          endDeciding(operations, operationId, instanceId, token, decided, this.now()).catch((error: unknown) =>
            this.logger.warn('could not remove the mark of a decision that ended', { operationId, instanceId, error: String(error) }),
          ),
      },
      apply,
    );
    // The activity reports the refusal as the instance's fault; the operation fails instead (the fan-out's failure).
    if (poison) throw poison;
    return outcome;
  }
}
