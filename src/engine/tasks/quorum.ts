/**
 * @module When a task's decisions resolve it. `any`: the first decision. `{ count: n }`: n decisions of one
 * outcome. `all` and `majority` count over the task's user assignees (its electorate: groups and roles have
 * no known membership here), needing every one of them, or more than half, to decide the same outcome.
 * With a known electorate, a quorum no outcome can reach any more (the undecided are too few to make up
 * the difference) resolves with the task's `unreachableOutcome`, when it names one; else the task waits
 * for an escalation step or a person to move it.
 */
import type { HumanTaskDefinition } from '../definition/human-task';
import type { OpenTask, TaskDecision, TaskResolution } from '../model/task';

export interface QuorumVerdict {
  readonly outcome: string;
  readonly reason: TaskResolution['reason'];
}

/** How many decisions of one outcome resolve the task, and how many people can still decide (undefined: unknown). */
export function quorumNeeds(definition: HumanTaskDefinition, task: OpenTask, decisions: readonly TaskDecision[]): { needed: number; undecided?: number } {
  const quorum = definition.quorum ?? 'any';
  if (quorum === 'any') return { needed: 1 };
  if (typeof quorum === 'object') {
    const electorate = task.assignees.users;
    return { needed: quorum.count, ...(electorate.length ? { undecided: undecidedOf(electorate, decisions) } : {}) };
  }
  const electorate = task.assignees.users;
  // No user assignees to count over: the first decision stands (as `any`), rather than a task nobody can finish.
  if (electorate.length === 0) return { needed: 1 };
  const needed = quorum === 'all' ? electorate.length : Math.floor(electorate.length / 2) + 1;
  return { needed, undecided: undecidedOf(electorate, decisions) };
}

function undecidedOf(electorate: readonly string[], decisions: readonly TaskDecision[]): number {
  const decided = new Set(decisions.map((decision) => decision.by.id));
  return electorate.filter((id) => !decided.has(id)).length;
}

/** The outcome `decisions` resolve the task with, or undefined while it stays open. */
export function quorumVerdict(definition: HumanTaskDefinition, task: OpenTask, decisions: readonly TaskDecision[]): QuorumVerdict | undefined {
  const votes = new Map<string, number>();
  for (const decision of decisions) votes.set(decision.outcome, (votes.get(decision.outcome) ?? 0) + 1);
  const { needed, undecided } = quorumNeeds(definition, task, decisions);
  for (const outcome of definition.outcomes) if ((votes.get(outcome.name) ?? 0) >= needed) return { outcome: outcome.name, reason: 'quorum' };
  if (undecided === undefined || definition.unreachableOutcome === undefined) return undefined;
  const reachable = definition.outcomes.some((outcome) => (votes.get(outcome.name) ?? 0) + undecided >= needed);
  return reachable ? undefined : { outcome: definition.unreachableOutcome, reason: 'unreachable' };
}
