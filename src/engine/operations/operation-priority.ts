/**
 * @module Where a runner queues an operation among others waiting: kept apart from operation.ts, which
 * the orchestrators load (its imports stay pure), since a trigger's default priority comes from the model.
 */
import { DEFAULT_TRIGGER_PRIORITY, triggerPriority } from '../model/trigger';
import { OperationKind, type ListedOperation, type Operation } from './operation';

/**
 * Where a runner queues the operation among others waiting (higher first): a trigger's priority, the
 * default for migrations, bulk actions and records written before priorities.
 */
export function operationPriority(operation: Operation | ListedOperation): number {
  if (operation.kind === OperationKind.migration || operation.kind === OperationKind.bulk) return DEFAULT_TRIGGER_PRIORITY;
  return operation.priority ?? triggerPriority(operation.trigger);
}
