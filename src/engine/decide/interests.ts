/**
 * @module An instance's interests: its own id, the state's declared interests and those its deciding
 * conditions add (exit conditions and transition conditions, recursively). Rendered against the context
 * as it stands after entry actions; deduplicated and sorted.
 */
import type { StateDefinition, Step } from '../definition/definition';
import { hasPlaceholders, renderTemplate, type ExpressionOptions, type ExpressionScope } from '../expressions/expressions';
import type { Registry } from '../steps/registry';

/**
 * Interests one state may declare, counting those its conditions add: each is an index row written when
 * an instance enters the state (5,000 interests were 5,000 writes). Checked when a definition is validated.
 */
export const MAX_INTERESTS_PER_STATE = 100;
/**
 * Interests one instance may hold (its own id included). The per-state limit keeps validated definitions
 * under it; this guards definitions stored before the limit existed: past it, the step faults.
 */
export const MAX_INTERESTS_PER_INSTANCE = 128;

interface StateInterests {
  readonly literal: readonly string[];
  readonly templates: readonly string[];
}

// Per registry and state object: definitions are immutable and cached, so this is computed once.
const cache = new WeakMap<Registry, WeakMap<StateDefinition, StateInterests>>();

function conditionInterests(step: Step, registry: Registry, into: string[]): void {
  const { type, config } = registry.parseCondition(step);
  if (type.interests) into.push(...type.interests(config));
  if (type.children) for (const child of type.children(config)) conditionInterests(child.step, registry, into);
}

function stateInterests(state: StateDefinition, registry: Registry): StateInterests {
  let perRegistry = cache.get(registry);
  if (!perRegistry) cache.set(registry, (perRegistry = new WeakMap()));
  const hit = perRegistry.get(state);
  if (hit) return hit;
  const all: string[] = [...state.interests];
  for (const condition of state.exitConditions) conditionInterests(condition, registry, all);
  for (const transition of state.transitions) {
    // A timer transition is chosen by its timer, which is addressed to the instance itself: no interests.
    if (transition.timer) continue;
    for (const condition of transition.conditions) conditionInterests(condition, registry, all);
  }
  const unique = [...new Set(all)];
  const computed = { literal: unique.filter((item) => !hasPlaceholders(item)), templates: unique.filter(hasPlaceholders) };
  perRegistry.set(state, computed);
  return computed;
}

/** How many interests the state has, declared and from its conditions (before rendering). */
export function stateInterestCount(state: StateDefinition, registry: Registry): number {
  const { literal, templates } = stateInterests(state, registry);
  return literal.length + templates.length;
}

export async function computeInterests(instanceId: string, state: StateDefinition, scope: ExpressionScope, registry: Registry, options: ExpressionOptions = {}): Promise<string[]> {
  const { literal, templates } = stateInterests(state, registry);
  const out = new Set<string>([instanceId, ...literal]);
  for (const template of templates) {
    const rendered = await renderTemplate(template, scope, 'undefined', options);
    if (rendered) out.add(rendered);
  }
  if (out.size > MAX_INTERESTS_PER_INSTANCE) throw new Error(`the instance would have ${out.size} interests; at most ${MAX_INTERESTS_PER_INSTANCE} are allowed`);
  return [...out].sort();
}
