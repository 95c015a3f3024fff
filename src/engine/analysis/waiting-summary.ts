/**
 * @module A workflow's instances that are not final, counted per class and state, with the oldest of
 * each group, the trigger names a group waits for, and fault causes grouped: "312 waiting for Approve,
 * oldest 9 days; 4 faulted: allow-list". Fed one `whyWaiting` answer at a time (the host reads the
 * instances page by page, up to MAX_WAITING_SCAN), so it holds groups, never instances.
 */
import type { WaitingAnswer, WaitingClass } from './why-waiting';

/** Instances one workflow summary reads at most (page by page); past it the answer says `truncated`. */
export const MAX_WAITING_SCAN = 10_000;
/** Distinct fault causes kept per group (the most frequent); the rest are counted under `otherCauses`. */
export const MAX_FAULT_CAUSES = 10;
/** A fault cause is grouped by its first this many characters. */
export const FAULT_CAUSE_LENGTH = 200;

export interface WaitingGroup {
  readonly class: WaitingClass;
  readonly stateId: string;
  readonly count: number;
  /** The instance that has not moved for the longest, and since when. */
  readonly oldest: { readonly instanceId: string; readonly since: string };
  /** For `waitingForTrigger`: the names its state answers (`*`: any). */
  readonly triggerNames?: readonly string[];
  /** For `faulted`: the causes, most frequent first. */
  readonly causes?: readonly { readonly cause: string; readonly count: number }[];
  readonly otherCauses?: number;
}

export interface WaitingSummary {
  readonly workflowId: string;
  /** Instances read (final ones included). */
  readonly scanned: number;
  /** Instances counted (not final). */
  readonly notFinal: number;
  /** More instances exist than MAX_WAITING_SCAN: the counts cover the first ones read. */
  readonly truncated: boolean;
  /** Largest groups first. */
  readonly groups: readonly WaitingGroup[];
}

interface MutableGroup {
  class: WaitingClass;
  stateId: string;
  count: number;
  oldest: { instanceId: string; since: string };
  triggerNames?: Set<string>;
  causes?: Map<string, number>;
}

export class WaitingTally {
  private readonly groups = new Map<string, MutableGroup>();
  private scanned = 0;
  private notFinal = 0;

  add(answer: WaitingAnswer): void {
    this.scanned++;
    if (answer.class === 'final') return;
    this.notFinal++;
    const key = `${answer.class}\u0000${answer.stateId}`;
    let group = this.groups.get(key);
    if (!group) this.groups.set(key, (group = { class: answer.class, stateId: answer.stateId, count: 0, oldest: { instanceId: answer.instanceId, since: answer.since } }));
    group.count++;
    if (answer.since < group.oldest.since) group.oldest = { instanceId: answer.instanceId, since: answer.since };
    const primary = answer.reasons[0]!;
    if (primary.class === 'waitingForTrigger') {
      group.triggerNames ??= new Set();
      for (const trigger of primary.triggers) for (const name of trigger.triggerNames) group.triggerNames.add(name);
    }
    if (primary.class === 'faulted') {
      group.causes ??= new Map();
      const cause = primary.cause.slice(0, FAULT_CAUSE_LENGTH);
      group.causes.set(cause, (group.causes.get(cause) ?? 0) + 1);
    }
  }

  summary(workflowId: string, truncated: boolean): WaitingSummary {
    const groups = [...this.groups.values()]
      .map((group): WaitingGroup => {
        const causes = group.causes ? [...group.causes].map(([cause, count]) => ({ cause, count })).sort((a, b) => b.count - a.count || a.cause.localeCompare(b.cause)) : undefined;
        const kept = causes?.slice(0, MAX_FAULT_CAUSES);
        const other = causes ? causes.slice(MAX_FAULT_CAUSES).reduce((sum, cause) => sum + cause.count, 0) : 0;
        return {
          class: group.class,
          stateId: group.stateId,
          count: group.count,
          oldest: group.oldest,
          ...(group.triggerNames ? { triggerNames: [...group.triggerNames].sort() } : {}),
          ...(kept ? { causes: kept } : {}),
          ...(other ? { otherCauses: other } : {}),
        };
      })
      .sort((a, b) => b.count - a.count || a.class.localeCompare(b.class) || a.stateId.localeCompare(b.stateId));
    return { workflowId, scanned: this.scanned, notFinal: this.notFinal, truncated, groups };
  }
}
