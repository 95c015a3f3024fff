/**
 * @module Who a task is for: its assignees and candidates resolved from the definition (lists, and a
 * JSONata expression yielding more), the inbox keys they are indexed under (`user:<id>`, `group:<id>`,
 * `role:<name>`), and whether an actor is one of them.
 */
import type { TaskAssigneesDefinition } from '../definition/human-task';
import { evaluateExpression, type ExpressionScope } from '../expressions/expressions';
import { effectiveActor, type Actor } from '../model/actor';
import type { JsonValue } from '../model/json';
import type { TaskPrincipals } from '../model/task';

export const NO_PRINCIPALS: TaskPrincipals = { users: [], groups: [], roles: [] };

/** How many principals one task may name (its inbox rows are written with every save that changes them). */
export const MAX_TASK_PRINCIPALS = 100;

const unique = (values: Iterable<string>): string[] => [...new Set(values)];

export function mergePrincipals(a: TaskPrincipals, b: TaskPrincipals): TaskPrincipals {
  return { users: unique([...a.users, ...b.users]), groups: unique([...a.groups, ...b.groups]), roles: unique([...a.roles, ...b.roles]) };
}

/** What an assignee expression yielded, read as principals; anything it cannot read is skipped. */
export function principalsOfValue(value: JsonValue | undefined): TaskPrincipals {
  const users: string[] = [];
  const groups: string[] = [];
  const roles: string[] = [];
  const add = (item: JsonValue | undefined) => {
    if (typeof item === 'string' && item.length > 0) {
      const [kind, ...rest] = item.split(':');
      const name = rest.join(':');
      if (rest.length && kind === 'group') groups.push(name);
      else if (rest.length && kind === 'role') roles.push(name);
      else users.push(rest.length && kind === 'user' ? name : item);
    } else if (Array.isArray(item)) item.forEach(add);
    else if (item && typeof item === 'object') {
      const strings = (list: JsonValue | undefined) => (Array.isArray(list) ? list.filter((entry): entry is string => typeof entry === 'string' && entry.length > 0) : []);
      users.push(...strings(item.users));
      groups.push(...strings(item.groups));
      roles.push(...strings(item.roles));
    }
  };
  add(value);
  return { users: unique(users), groups: unique(groups), roles: unique(roles) };
}

/**
 * The principals `definition` names, its expression evaluated over `scope`. An expression that fails
 * adds nobody (the task is still created, with the listed ones): a person can still be reached by an
 * `escalate` step or a delegation, and the failure is in `problem`.
 */
export async function resolvePrincipals(definition: TaskAssigneesDefinition, scope: ExpressionScope, now: () => Date): Promise<{ principals: TaskPrincipals; problem?: string }> {
  const listed: TaskPrincipals = { users: unique(definition.users ?? []), groups: unique(definition.groups ?? []), roles: unique(definition.roles ?? []) };
  if (definition.expression === undefined) return { principals: bounded(listed) };
  try {
    const value = await evaluateExpression(definition.expression, scope, { now });
    return { principals: bounded(mergePrincipals(listed, principalsOfValue(value))) };
  } catch (error) {
    return { principals: bounded(listed), problem: `the assignee expression failed: ${error instanceof Error ? error.message : String(error)}` };
  }
}

function bounded(principals: TaskPrincipals): TaskPrincipals {
  let room = MAX_TASK_PRINCIPALS;
  const take = (list: readonly string[]) => {
    const kept = list.slice(0, Math.max(0, room));
    room -= kept.length;
    return kept;
  };
  return { users: take(principals.users), groups: take(principals.groups), roles: take(principals.roles) };
}

/** The inbox keys of principals: `user:<id>`, `group:<id>`, `role:<name>`. */
export function principalKeys(principals: TaskPrincipals): string[] {
  return [...principals.users.map((id) => `user:${id}`), ...principals.groups.map((id) => `group:${id}`), ...principals.roles.map((name) => `role:${name}`)];
}

/** The inbox keys an actor reads: its own id, its groups, its roles. */
export function actorKeys(actor: Actor): string[] {
  const who = effectiveActor(actor);
  return principalKeys({ users: [who.id], groups: who.groups ?? [], roles: who.roles });
}

/** Whether the actor is one of the principals (by id, a group or a role). */
export function isAmong(actor: Actor, principals: TaskPrincipals | undefined): boolean {
  if (!principals) return false;
  const keys = new Set(principalKeys(principals));
  return actorKeys(actor).some((key) => keys.has(key));
}
