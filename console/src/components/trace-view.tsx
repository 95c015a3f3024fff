/** @module A trigger's trace: each condition or action visited, with whether it held. */
import type { TraceEntry } from '../../../src/client';

function resultText(result: TraceEntry['result']): string {
  if (result === true) return 'held';
  if (result === false) return 'did not hold';
  return String(result);
}

export function TraceView({ trace }: { trace: TraceEntry[] | undefined }) {
  if (!trace || trace.length === 0) return <p class="muted">No trace recorded.</p>;
  return (
    <ol class="trace">
      {trace.map((step, index) => (
        <li key={`${index}:${step.path}`} class={`trace-${resultText(step.result).replace(/\s+/g, '-')}`}>
          <code>{step.path}</code> <span class="muted">{step.type}</span>: <strong>{resultText(step.result)}</strong>
          {step.detail !== undefined && <span class="trace-detail"> {typeof step.detail === 'string' ? step.detail : JSON.stringify(step.detail)}</span>}
        </li>
      ))}
    </ol>
  );
}
