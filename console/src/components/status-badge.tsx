/** @module An instance or operation status, with its word always shown (colour is never the only cue). */
export function StatusBadge({ status }: { status: string }) {
  return <span class={`badge badge-${status}`}>{status}</span>;
}
