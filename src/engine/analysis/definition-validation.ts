/**
 * @module Validation of a workflow definition as a whole: the structural schema, then the semantics
 * (initial and target states exist, transition ids are unique per state, every condition and action has
 * a registered type and matches its schema, expressions and templates compile). Every problem is
 * reported, by JSON path, in one DefinitionInvalidError; the semantic pass reads the raw input
 * defensively so structural mistakes do not hide semantic ones.
 */
import { workflowDefinitionSchema, type WorkflowDefinition } from '../definition/definition';
import { DefinitionInvalidError, type ValidationIssue } from '../model/errors';
import { repeatedSubscriptionIds } from '../definition/subscriptions';
import { compileExpression, parseTemplate } from '../expressions/expressions';
import { MAX_INTERESTS_PER_STATE, stateInterestCount } from '../decide/interests';
import { builtInRegistry, type Registry } from '../steps/registry';
import { formatPath, issuesFromZod } from '../model/validation';

type Path = (string | number)[];

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function checkSteps(kind: 'condition' | 'action', steps: unknown, path: Path, registry: Registry, issues: ValidationIssue[]): void {
  if (!Array.isArray(steps)) return;
  steps.forEach((step, index) => checkStep(kind, step, [...path, index], registry, issues));
}

function checkStep(kind: 'condition' | 'action', step: unknown, path: Path, registry: Registry, issues: ValidationIssue[]): void {
  if (!isObject(step) || typeof step.type !== 'string') return; // the structural schema reports it
  const type = kind === 'condition' ? registry.condition(step.type) : registry.action(step.type);
  if (!type) {
    const known = kind === 'condition' ? registry.conditionTypes() : registry.actionTypes();
    issues.push({ path: formatPath([...path, 'type']), message: `unknown ${kind} type "${step.type}" (known: ${known.join(', ')})` });
    return;
  }
  const result = type.schema.safeParse(step);
  if (!result.success) {
    issues.push(...issuesFromZod(result.error, path));
    return;
  }
  if (kind === 'condition' && 'children' in type && type.children) {
    for (const child of type.children(result.data)) checkStep('condition', child.step, [...path, ...child.path], registry, issues);
  }
}

/** What the timer's own schema cannot see: the calendar it names exists, its `at` expression compiles. */
function checkTimer(timer: Record<string, unknown>, path: Path, calendars: unknown, issues: ValidationIssue[]): void {
  if (typeof timer.calendar === 'string' && !(isObject(calendars) && Object.hasOwn(calendars, timer.calendar))) {
    issues.push({ path: formatPath([...path, 'calendar']), message: `the calendar "${timer.calendar}" is not among the workflow's calendars` });
  }
  if (typeof timer.at === 'string') {
    try {
      compileExpression(timer.at);
    } catch (error) {
      issues.push({ path: formatPath([...path, 'at']), message: (error as Error).message });
    }
  }
}

/** An `onError` must lead to a state of the workflow. */
function checkOnError(onError: unknown, path: Path, has: (id: unknown) => boolean, issues: ValidationIssue[]): void {
  if (isObject(onError) && typeof onError.targetStateId === 'string' && !has(onError.targetStateId)) {
    issues.push({ path: formatPath([...path, 'targetStateId']), message: `the target state "${onError.targetStateId}" is not among the states` });
  }
}

/** What a task's own schema cannot see: its state has transitions for it to complete, the calendars it names exist. */
function taskIssues(task: Record<string, unknown>, transitions: unknown, path: Path, calendars: unknown): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  if (!Array.isArray(transitions) || transitions.length === 0) issues.push({ path: formatPath(path), message: 'a final state has no task: nothing could complete it' });
  const calendar = (name: unknown, at: Path) => {
    if (typeof name === 'string' && !(isObject(calendars) && Object.hasOwn(calendars, name)))
      issues.push({ path: formatPath(at), message: `the calendar "${name}" is not among the workflow's calendars` });
  };
  calendar(task.calendar, [...path, 'calendar']);
  if (isObject(task.due)) checkTimer(task.due, [...path, 'due'], calendars, issues);
  if (Array.isArray(task.escalation)) task.escalation.forEach((step, index) => isObject(step) && calendar(step.calendar, [...path, 'escalation', index, 'calendar']));
  return issues;
}

function semanticIssues(input: unknown, registry: Registry): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  if (!isObject(input)) return issues;
  for (const { index, id, first } of repeatedSubscriptionIds(input.subscriptions)) {
    issues.push({ path: formatPath(['subscriptions', index, 'id']), message: `subscription id "${id}" repeats subscriptions[${first}]` });
  }
  if (!isObject(input.states)) return issues;
  const states = input.states;
  const has = (id: unknown) => typeof id === 'string' && Object.hasOwn(states, id);
  if (typeof input.initialStateId === 'string' && !has(input.initialStateId)) {
    issues.push({ path: 'initialStateId', message: `the initial state "${input.initialStateId}" is not among the states` });
  }
  for (const [stateId, state] of Object.entries(states)) {
    if (!isObject(state)) continue;
    const statePath: Path = ['states', stateId];
    if (Array.isArray(state.interests)) {
      state.interests.forEach((interest, index) => {
        if (typeof interest !== 'string') return;
        try {
          parseTemplate(interest);
        } catch (error) {
          issues.push({ path: formatPath([...statePath, 'interests', index]), message: (error as Error).message });
        }
      });
    }
    checkSteps('condition', state.entryConditions, [...statePath, 'entryConditions'], registry, issues);
    checkSteps('action', state.entryActions, [...statePath, 'entryActions'], registry, issues);
    checkSteps('condition', state.exitConditions, [...statePath, 'exitConditions'], registry, issues);
    checkSteps('action', state.exitActions, [...statePath, 'exitActions'], registry, issues);
    checkOnError(state.onError, [...statePath, 'onError'], has, issues);
    if (isObject(state.task)) issues.push(...taskIssues(state.task, state.transitions, [...statePath, 'task'], input.calendars));
    if (!Array.isArray(state.transitions)) continue;
    const seen = new Map<string, number>();
    state.transitions.forEach((transition, index) => {
      if (!isObject(transition)) return;
      const path: Path = [...statePath, 'transitions', index];
      if (typeof transition.id === 'string') {
        const first = seen.get(transition.id);
        if (first !== undefined) issues.push({ path: formatPath([...path, 'id']), message: `transition id "${transition.id}" repeats transitions[${first}] of state "${stateId}"` });
        else seen.set(transition.id, index);
      }
      if (typeof transition.targetStateId === 'string' && !has(transition.targetStateId)) {
        issues.push({ path: formatPath([...path, 'targetStateId']), message: `the target state "${transition.targetStateId}" is not among the states` });
      }
      checkSteps('condition', transition.conditions, [...path, 'conditions'], registry, issues);
      checkSteps('action', transition.actions, [...path, 'actions'], registry, issues);
      if (isObject(transition.timer)) checkTimer(transition.timer, [...path, 'timer'], input.calendars, issues);
      checkOnError(transition.onError, [...path, 'onError'], has, issues);
      if (isObject(transition.actors) && typeof transition.actors.expression === 'string') {
        try {
          compileExpression(transition.actors.expression);
        } catch (error) {
          issues.push({ path: formatPath([...path, 'actors', 'expression']), message: (error as Error).message });
        }
      }
    });
  }
  return issues;
}

function interestCountIssues(definition: WorkflowDefinition, registry: Registry): ValidationIssue[] {
  return Object.entries(definition.states).flatMap(([stateId, state]) => {
    const count = stateInterestCount(state, registry);
    if (count <= MAX_INTERESTS_PER_STATE) return [];
    return [
      { path: formatPath(['states', stateId, 'interests']), message: `the state has ${count} interests (declared, and added by its conditions); at most ${MAX_INTERESTS_PER_STATE} are allowed` },
    ];
  });
}

/** Returns the definition with defaults filled in, or throws DefinitionInvalidError listing every problem. */
export function validateDefinition(input: unknown, registry: Registry = builtInRegistry()): WorkflowDefinition {
  const structural = workflowDefinitionSchema.safeParse(input);
  const issues = [...(structural.success ? [] : issuesFromZod(structural.error)), ...semanticIssues(input, registry)];
  // Counted on the parsed definition (conditions add interests too), so only once the rest is valid.
  if (structural.success && issues.length === 0) issues.push(...interestCountIssues(structural.data, registry));
  if (issues.length) {
    const seen = new Set<string>();
    throw new DefinitionInvalidError(
      issues.filter((issue) => {
        const key = `${issue.path}\u0000${issue.message}`;
        return seen.has(key) ? false : (seen.add(key), true);
      }),
    );
  }
  return structural.data!;
}
