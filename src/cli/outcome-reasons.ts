/**
 * @module Why an instance did not move, in one line, for the operation view: a fault's message; for
 * `entryBlocked`/`exitBlocked` the deciding line of the trace (the condition that was false, with what it
 * saw); for `noTransition` that line too, or, when no transition answers the trigger's name at all, the
 * names the instance's state does answer ("this state answers Approve, Reject", asked of the server).
 */
import type { ApiClient, ApiOperation } from './api';

type OperationResult = ApiOperation['instances'][number];
type TraceLine = NonNullable<OperationResult['trace']>[number];

/** A transition's own condition (not a nested one): `...transitions[i].conditions[j]`. */
const TRANSITION_CONDITION = /\.transitions\[(\d+)\]\.conditions\[\d+\]$/;

function describeLine(line: TraceLine): string {
  return line.detail ? `${line.path}: ${line.detail}` : `${line.path} (${line.type}) is false`;
}

/** The false condition that decided a blocked or unmatched result, or 'triggerName' when only names failed. */
export function decidingLine(result: OperationResult): TraceLine | 'triggerName' | undefined {
  const trace = result.trace ?? [];
  const falseLines = trace.filter((line) => line.result === false);
  const lastFalse = (part: string) => falseLines.filter((line) => line.path.includes(part)).pop();
  if (result.outcome === 'entryBlocked') return lastFalse('.entryConditions[');
  if (result.outcome === 'exitBlocked') return lastFalse('.exitConditions[');
  if (result.outcome !== 'noTransition') return undefined;
  // Each transition stopped at its first false condition: one whose name matched but whose next check
  // failed is the one to show; when every transition failed on the name, the name is the reason.
  const firstFalseOfEach = new Map<string, TraceLine>();
  for (const line of falseLines) {
    const match = TRANSITION_CONDITION.exec(line.path);
    if (match && !firstFalseOfEach.has(match[1]!)) firstFalseOfEach.set(match[1]!, line);
  }
  const decided = [...firstFalseOfEach.values()].find((line) => line.type !== 'triggerName');
  return decided ?? 'triggerName';
}

/** One line per shown result that did not move (instance id → why). Asks the server only for names. */
export async function outcomeReasons(api: ApiClient, results: readonly OperationResult[]): Promise<Map<string, string>> {
  const reasons = new Map<string, string>();
  for (const result of results) {
    if (result.outcome === 'faulted') {
      if (result.error) reasons.set(result.instanceId, result.error);
      continue;
    }
    const line = decidingLine(result);
    if (line === undefined) continue;
    if (line !== 'triggerName') {
      reasons.set(result.instanceId, describeLine(line));
      continue;
    }
    try {
      const available = await api.availableTriggers(result.instanceId);
      const names = [...new Set(available.items.flatMap((item) => item.triggerNames))];
      reasons.set(result.instanceId, names.length ? `this state answers ${names.join(', ')}` : `this state (${available.stateId}, ${available.status}) answers no trigger`);
    } catch {
      reasons.set(result.instanceId, "no transition of this state answers the trigger's name");
    }
  }
  return reasons;
}
