/**
 * @module A trigger's dry run as a person reads it: a summary of the outcomes, then for each of the first
 * instances what it would do: the outcome and transition, the trace of the conditions evaluated (in
 * order, with the value an expression gave), the context it would have afterwards, the actions it would
 * run with their rendered inputs, the triggers it would raise and the lifecycle events it would publish.
 */
import type { ApiDryRun, ApiDryRunInstance } from './api';
import { plural } from './definition-check';
import type { Output } from './output';

type TraceEntry = NonNullable<ApiDryRunInstance['trace']>[number];
type PlannedAction = ApiDryRunInstance['actions'][number];

export interface DryRunViewOptions {
  /** Instances shown in detail. @default 10 */
  readonly results?: number;
}

export function printDryRun(output: Output, triggerName: string, dryRun: ApiDryRun, options: DryRunViewOptions = {}): void {
  const { colors } = output;
  const count = dryRun.instances.length;
  output.print(`Dry run of ${triggerName}: ${plural(count, 'instance')}${dryRun.truncated ? ' (the first 100 candidates; there are more)' : ''}; nothing was saved, leased or sent`);
  const counts = new Map<string, number>();
  for (const result of dryRun.instances) counts.set(result.outcome, (counts.get(result.outcome) ?? 0) + 1);
  if (counts.size) output.print(`  ${[...counts].map(([outcome, n]) => `${outcome} ${n}`).join(', ')}`);
  const limit = options.results ?? 10;
  for (const result of dryRun.instances.slice(0, limit)) {
    output.print('', ...instanceLines(output, result));
  }
  const more = count - Math.min(count, limit);
  if (more > 0) output.print('', `… and ${more} more (--results N shows more, --json all of them)`);
  if (!count) output.note(colors.yellow('No instance is interested in these subjects.'));
}

function instanceLines(output: Output, result: ApiDryRunInstance): string[] {
  const { colors } = output;
  const move = result.toStateId !== undefined ? `${result.fromStateId ?? '?'} → ${result.toStateId}` : result.fromStateId !== undefined ? `stays in ${result.fromStateId}` : '';
  const headline = [colors.bold(result.instanceId), outcomeColor(output, result.outcome), result.transitionId ? `transition ${result.transitionId}` : '', move].filter(Boolean).join('  ');
  const lines = [headline];
  if (result.error) lines.push(`  ${colors.red('error')}: ${result.error}`);
  if (result.trace?.length) {
    lines.push(
      '  trace:',
      output.table(
        ['RESULT', 'CONDITION', 'TYPE', 'DETAIL'],
        result.trace.map((entry) => [traceResult(output, entry), entry.path, entry.type, entry.detail]),
        { indent: 4 },
      ),
    );
  }
  lines.push(`  context after: ${JSON.stringify(result.contextAfter)}`);
  if (result.actions.length) {
    // The third column only when some action has a request, a log line or a trigger to show.
    const details = result.actions.map(actionDetail);
    const withDetails = details.some(Boolean);
    lines.push(
      '  actions:',
      output.table(
        ['STEP', 'TYPE', ...(withDetails ? ['WOULD'] : [])],
        result.actions.map((action, index) => [action.step, action.type, ...(withDetails ? [details[index]] : [])]),
        { indent: 4 },
      ),
    );
  } else lines.push('  actions: none');
  for (const raised of result.raisedTriggers) lines.push(`  raises: ${raised.name} → ${raised.subjects.join(', ')}${raised.parameters ? ` ${JSON.stringify(raised.parameters)}` : ''}`);
  for (const event of result.events) lines.push(`  event: ${event.type} → ${event.subscriptionIds.join(', ')}`);
  return lines;
}

function outcomeColor(output: Output, outcome: string): string {
  const { colors } = output;
  if (outcome === 'transitioned') return colors.green(outcome);
  if (outcome === 'faulted') return colors.red(outcome);
  return colors.yellow(outcome);
}

function traceResult(output: Output, entry: TraceEntry): string {
  const { colors } = output;
  if (entry.result === true) return colors.green('true');
  if (entry.result === false) return colors.red('false');
  return entry.result === 'error' ? colors.red('error') : colors.dim('skipped');
}

/** What the action would do, in one line: the request it would send, the line it would log, the trigger it would raise. */
function actionDetail(action: PlannedAction): string {
  if (action.request) return `${action.request.method} ${action.request.url}${action.request.body !== undefined ? ` ${JSON.stringify(action.request.body)}` : ''}`;
  if (action.log) return `log ${action.log.level}: ${action.log.message}`;
  if (action.trigger) return `raise ${action.trigger.name} → ${action.trigger.subjects.join(', ')}`;
  return '';
}
