/**
 * @module Time travel: the instance as it was after history entry N, rebuilt from the entries 0..N alone
 * (their states, statuses and versions, and the context from the records' patches applied in order from
 * the empty context a creation starts from). Pure: the caller reads the entries.
 */
import { NotFoundError, ValidationError } from './errors';
import { applyJsonPatch } from './json-patch';
import type { JsonObject } from './json';
import type { InstanceStatus } from './enums';
import type { HistoryEntry } from './instance';

export interface InstanceAtEntry {
  readonly instanceId: string;
  /** The entry it is as after. */
  readonly sequence: number;
  readonly at: string;
  readonly event: HistoryEntry['event'];
  readonly stateId: string;
  readonly status: InstanceStatus;
  /** The version it ran under then (absent when no entry up to it names one: the version it was created under). */
  readonly workflowVersion?: number;
  readonly context: JsonObject;
  /**
   * The last entry up to `sequence` whose record holds the context: an entry of an automatic transition
   * inside one change has none of its own, so its context is the one before that change.
   */
  readonly contextAsOf: number;
  /** The entry itself, with its record (what came in and what changed). */
  readonly entry: HistoryEntry;
}

/**
 * The instance after entry `sequence`, from `entries` (oldest first, starting at 0, at least up to
 * `sequence`). NotFoundError when there is no such entry; ValidationError when an entry on the way holds
 * no context change (written before records were kept, or too large to record), naming it.
 */
export function instanceAtEntry(instanceId: string, entries: readonly HistoryEntry[], sequence: number): InstanceAtEntry {
  const target = entries.find((entry) => entry.sequence === sequence);
  if (!target) throw new NotFoundError(`Instance "${instanceId}" has no history entry ${sequence}`);
  let context: JsonObject = {};
  let contextAsOf = -1;
  let workflowVersion: number | undefined;
  for (const entry of entries) {
    if (entry.sequence > sequence) break;
    if (entry.toVersion !== undefined) workflowVersion = entry.toVersion;
    const record = entry.record;
    if (!record) throw unrebuildable(instanceId, entry.sequence, 'records no context change (written before history records were kept)');
    // An automatic transition's entry ahead of its change's last one: that entry holds the change's patch.
    if (record.partOfChange !== undefined) continue;
    if (!record.contextChange) throw unrebuildable(instanceId, entry.sequence, `holds a context change too large to record (${record.contextChangeOmitted?.bytes ?? '?'} bytes)`);
    context = applyJsonPatch(context, record.contextChange) as JsonObject;
    contextAsOf = entry.sequence;
  }
  return {
    instanceId,
    sequence,
    at: target.at,
    event: target.event,
    stateId: target.toStateId,
    status: target.status,
    ...(workflowVersion !== undefined ? { workflowVersion } : {}),
    context,
    contextAsOf,
    entry: target,
  };
}

function unrebuildable(instanceId: string, sequence: number, why: string): ValidationError {
  return new ValidationError(`Instance "${instanceId}" cannot be rebuilt past history entry ${sequence}: it ${why}`, [{ path: 'sequence', message: `entry ${sequence} ${why}` }]);
}
