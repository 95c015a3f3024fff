/** @module An instance or operation status, with its word always shown (colour is never the only cue). */
export function StatusBadge({ status }: { status: string }) {
  return <span class={`badge badge-${status}`}>{status}</span>;
}

/**
 * An operation's status: a finished one whose instances faulted says `completed with faults` and how many
 * (`succeeded` alone says only that the dispatch finished), never in green.
 */
export function OperationStatusBadge({ operation }: { operation: { readonly status: string; readonly outcome?: string; readonly faulted?: number } }) {
  if (operation.status === 'succeeded' && (operation.outcome === 'completedWithFaults' || (operation.faulted ?? 0) > 0)) {
    return <span class="badge badge-completedWithFaults">completed with faults ({operation.faulted ?? 0} faulted)</span>;
  }
  return <StatusBadge status={operation.status} />;
}
