/** How many times each trigger (ids starting with `prefix`) stands in the histories of `instanceIds`: once each means applied exactly once. */
import { onePage, type HistoryStore } from '../../src/engine/ports';
import { collectAll } from '../../src/testing';

export async function appliedTriggerCounts(history: HistoryStore, instanceIds: readonly string[], prefix: string): Promise<Map<string, number>> {
  const seen = new Map<string, number>();
  for (const instanceId of instanceIds) {
    const entries = await collectAll((page) => onePage(history.list(instanceId, page)));
    for (const entry of entries) if (entry.triggerId?.startsWith(prefix)) seen.set(entry.triggerId, (seen.get(entry.triggerId) ?? 0) + 1);
  }
  return seen;
}
