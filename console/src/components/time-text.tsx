/** @module A timestamp as the reader's local time, with the exact ISO value in a <time> element. */
export function TimeText({ value }: { value: string | undefined }) {
  if (!value) return <span class="muted">–</span>;
  const date = new Date(value);
  return <time dateTime={value}>{Number.isNaN(date.getTime()) ? value : date.toLocaleString()}</time>;
}
