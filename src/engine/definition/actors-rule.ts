/**
 * @module Who may take a transition: its `actors` rule, `{ roles, groups, users, expression }`. Every part
 * listed must hold: `roles`, one of the actor's app roles is listed; `groups`, one of its groups; `users`, its
 * id; `expression`, JSONata (the same scope as conditions, with `actor`) is true. It is evaluated first,
 * before the transition's conditions, and traced (type `actor`); an actor it refuses makes the transition
 * not taken, never a fault. The actor is the effective one (actor.ts): the user a caller acts for.
 *
 * A trigger without an actor (the engine used as a library, which has no identities) is not checked: the
 * host always names one. A `system` actor (a raised trigger, a timer) has no roles and no groups: a rule
 * listing roles refuses it, an expression may let it through (`actor.via = 'system'`).
 */
import { z } from 'zod';
import { effectiveActor, type Actor } from '../model/actor';
import { evaluateExpression, type ExpressionScope } from '../expressions';

const names = z.array(z.string().min(1).max(256)).max(100);

export const actorsRuleSchema = z
  .strictObject({
    roles: names.optional().meta({ description: 'App roles (the token `roles` claim): the actor must have one of them.' }),
    groups: names.optional().meta({ description: 'Group object ids (the token `groups` claim): the actor must be in one of them.' }),
    users: names.optional().meta({ description: "User ids (the token's `oid`, else `sub`): the actor must be one of them." }),
    expression: z.string().min(1).max(4096).optional().meta({ description: 'JSONata over `actor`, `context`, `instance` and `trigger`: must be true, e.g. `actor.id != context.claimantId`.' }),
  })
  .meta({
    description:
      'Who may take this transition; every part listed must hold. Evaluated before the conditions and traced (type `actor`); a refused actor makes the transition not taken (`noTransition`), never a fault. Triggers without an actor (library use) are not checked.',
  });
export type ActorsRule = z.infer<typeof actorsRuleSchema>;

export interface ActorsVerdict {
  readonly allowed: boolean;
  /** Why, in a sentence that names the actor's id and the failing part (no token, no claim beyond the id). */
  readonly detail: string;
}

/** Whether `actor` may take a transition with `rule`; undefined actor: not checked (see the module comment). */
export async function judgeActors(rule: ActorsRule, actor: Actor | undefined, scope: ExpressionScope, now?: () => Date): Promise<ActorsVerdict> {
  if (!actor) return { allowed: true, detail: 'no actor: not checked' };
  const who = effectiveActor(actor);
  const name = JSON.stringify(who.id);
  if (rule.roles && !rule.roles.some((role) => who.roles.includes(role))) return { allowed: false, detail: `actor ${name} has none of the roles ${rule.roles.join(', ') || '(none listed)'}` };
  if (rule.groups && !rule.groups.some((group) => (who.groups ?? []).includes(group))) return { allowed: false, detail: `actor ${name} is in none of the groups listed` };
  if (rule.users && !rule.users.includes(who.id)) return { allowed: false, detail: `actor ${name} is not among the users listed` };
  if (rule.expression !== undefined) {
    let value: unknown;
    try {
      value = await evaluateExpression(rule.expression, { ...scope, actor: who }, now ? { now } : {});
    } catch (error) {
      // A rule that cannot be evaluated refuses (it never faults the instance).
      return { allowed: false, detail: `actor ${name}: the expression failed: ${error instanceof Error ? error.message : String(error)}` };
    }
    if (value !== true) return { allowed: false, detail: `actor ${name}: ${rule.expression} is ${JSON.stringify(value) ?? 'undefined'}` };
  }
  return { allowed: true, detail: `actor ${name} may take it` };
}

/** True when the rule lists an empty set of roles, groups or users: no actor can take the transition. */
export function refusesEveryone(rule: ActorsRule): string | undefined {
  for (const part of ['roles', 'groups', 'users'] as const) if (rule[part]?.length === 0) return part;
  return undefined;
}
