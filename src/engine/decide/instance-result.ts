/** @module What deciding for one instance answered: its outcome, state change and trace (an operation collects these). */
import type { OperationOutcome } from '../model/enums';
import type { TraceEntry } from './decision-trace';

export interface InstanceResult {
  readonly instanceId: string;
  readonly outcome: OperationOutcome;
  readonly transitionId?: string;
  readonly fromStateId?: string;
  readonly toStateId?: string;
  /** For `faulted`, and for `notMigratable`, `conflict` and `failed` (why). */
  readonly error?: string;
  /**
   * Only for `duplicate`: what the trigger did when it was applied, from the instance's own record
   * (instance.ts, `appliedTriggers`).
   */
  readonly applied?: Omit<InstanceResult, 'instanceId' | 'applied' | 'trace'>;
  /** The conditions evaluated, in order (decision-trace.ts); absent when none were (duplicate, notActive, ...). */
  readonly trace?: readonly TraceEntry[];
}
