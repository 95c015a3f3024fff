/**
 * @module `signalbox bulk <cancel|recover|suspend|resume|delete> --workflow <id> [filters]`: one operation
 * that acts on every instance the filter matches (each under its lease, the filter checked again), with
 * `--wait` followed to its end (`watch`'s view).
 */
import type { BulkAction, BulkRequest, InstanceStatusName } from '../api';
import type { CommandContext } from '../context';
import { UsageError } from '../errors';
import { followOperation } from './watch';

export const BULK_ACTIONS: readonly BulkAction[] = ['cancel', 'recover', 'suspend', 'resume', 'delete'];

export interface BulkOptions {
  readonly workflow: string;
  readonly state?: string;
  readonly status?: InstanceStatusName;
  readonly subject?: string;
  readonly updatedBefore?: string;
  readonly toState?: string;
  readonly force?: boolean;
  readonly wait?: boolean;
  readonly results?: number;
  readonly progress?: boolean;
}

export async function bulkCommand(context: CommandContext, action: BulkAction, options: BulkOptions): Promise<void> {
  // What the server would refuse with a 400 is a usage mistake here, caught before any request.
  if (action === 'recover' && options.toState === undefined) throw new UsageError('bulk recover needs --to-state <stateId> (the state whose entry runs again)');
  if (action !== 'recover' && options.toState !== undefined) throw new UsageError('--to-state is only for bulk recover');
  if (action !== 'delete' && options.force) throw new UsageError('--force is only for bulk delete');
  const request: BulkRequest = {
    action,
    filter: {
      workflowId: options.workflow,
      ...(options.state !== undefined ? { stateId: options.state } : {}),
      ...(options.status !== undefined ? { status: options.status } : {}),
      ...(options.subject !== undefined ? { subject: options.subject } : {}),
      ...(options.updatedBefore !== undefined ? { updatedBefore: options.updatedBefore } : {}),
    },
    ...(options.toState !== undefined ? { stateId: options.toState } : {}),
    ...(options.force ? { force: true } : {}),
  };
  const accepted = await context.api.bulk(request);
  if (options.wait) return followOperation(context, accepted.operationId, options);
  if (context.json) return context.output.printJson(accepted);
  context.output.print(`Bulk ${action} ${accepted.operationId} ${accepted.status}; follow it with: signalbox watch ${accepted.operationId}`);
}
