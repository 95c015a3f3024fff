/**
 * @module Waiting for an operation: polls it until it finishes, drawing a progress bar (cli-progress)
 * when stdout is a terminal, then prints the summary and the first per-instance outcomes as a table.
 * The bar counts instances processed of the total: the operation's `progress` when the server reports
 * it, otherwise the outcomes counted in `summary` of `candidates`.
 */
import { SingleBar } from 'cli-progress';
import { operationProgress, pollOperation } from '../client';
import type { ApiClient, ApiOperation } from './api';
import { plural } from './definition-check';
import { InstancesFaultedError, OperationFailedError } from './errors';
import type { Output } from './output';
import { escapeControlCharacters } from './terminal-text';

export interface WatchOptions {
  /** Per-instance outcomes to print after the summary. @default 10 */
  readonly results?: number;
  /** Draw the bar (still only on a terminal). @default true */
  readonly progress?: boolean;
  /** The first poll waits this long; later ones back off up to the server's Retry-After. @default 100 */
  readonly firstPollInMs?: number;
}

/** Polls until the operation finishes; returns it. Draws the bar on a terminal. */
export async function waitForOperation(api: ApiClient, operationId: string, output: Output, options: WatchOptions = {}): Promise<ApiOperation> {
  const bar = output.interactive && options.progress !== false ? new ProgressBar(output, operationId) : undefined;
  // Ctrl-C stops the watching, not the operation: put the cursor back and say how to pick it up again.
  const onInterrupt = () => {
    bar?.stop();
    output.note(`Stopped watching; operation ${operationId} goes on: signalbox watch ${operationId}`);
    process.exit(130);
  };
  process.once('SIGINT', onInterrupt);
  try {
    return await pollOperation(() => api.getOperation(operationId), { firstIntervalInMs: options.firstPollInMs ?? 100, maxIntervalInMs: 1000, onUpdate: (operation) => bar?.update(operation) });
  } finally {
    process.off('SIGINT', onInterrupt);
    bar?.stop();
  }
}

class ProgressBar {
  private readonly bar: SingleBar;
  private started = false;

  constructor(
    private readonly output: Output,
    private readonly operationId: string,
  ) {
    const { colors } = output;
    this.bar = new SingleBar({
      stream: output.stdout,
      // The format is the CLI's own text (its colour marks become escape codes); the payload is data: escaped.
      format: output.layout(`${colors.cyan('{bar}')} {processed}/{totalText} instances | {status} | {duration_formatted}`),
      barCompleteChar: '\u2588',
      barIncompleteChar: '\u2591',
      hideCursor: true,
      clearOnComplete: false,
      stopOnComplete: false,
      fps: 10,
      barsize: 30,
    });
  }

  update(operation: ApiOperation): void {
    const { processed, total } = operationProgress(operation);
    // cli-progress needs a total: an unknown one draws an empty bar and shows "?".
    const payload = { processed, totalText: total === undefined ? '?' : String(total), status: escapeControlCharacters(String(operation.status)), id: escapeControlCharacters(this.operationId) };
    const barTotal = Math.max(total ?? 0, 1);
    const barValue = total === undefined ? 0 : processed;
    if (!this.started) {
      this.bar.start(barTotal, barValue, payload);
      this.started = true;
      return;
    }
    this.bar.setTotal(barTotal);
    this.bar.update(barValue, payload);
  }

  stop(): void {
    if (!this.started) return;
    this.started = false;
    this.bar.stop();
  }
}

/** Faulted instances an operation counted (a migration's or bulk action's `failed` too): the server's count, or the summary's (older servers). */
export function faultedCount(operation: Pick<ApiOperation, 'summary' | 'kind'> & { readonly faulted?: number }): number {
  if (operation.faulted !== undefined) return operation.faulted;
  const summary = operation.summary as Record<string, number>;
  return (summary.faulted ?? 0) + (operation.kind === 'trigger' || operation.kind === undefined ? 0 : (summary.failed ?? 0));
}

/** An operation's status as a person reads it: `completed with faults (N faulted)` for a finished one whose instances faulted. */
export function statusText(operation: Pick<ApiOperation, 'summary' | 'kind' | 'status'> & { readonly faulted?: number }): string {
  const faulted = faultedCount(operation);
  return operation.status === 'succeeded' && faulted > 0 ? `completed with faults (${faulted} faulted)` : operation.status;
}

/**
 * The summary line, the non-zero outcome counts and a table of the first per-instance results, with why
 * each that did not move did not (`reasons`: instance id → line, from outcome-reasons.ts).
 */
export function printOperation(output: Output, operation: ApiOperation, options: Pick<WatchOptions, 'results'> & { reasons?: ReadonlyMap<string, string> } = {}): void {
  const { colors } = output;
  const { processed, total } = operationProgress(operation);
  // `succeeded` says the dispatch finished: one whose instances faulted says so, and how many, not green.
  const faulted = faultedCount(operation);
  const status =
    operation.status === 'succeeded'
      ? faulted > 0
        ? colors.yellow(`completed with faults (${faulted} faulted)`)
        : colors.green(operation.status)
      : operation.status === 'failed'
        ? colors.red(operation.status)
        : colors.yellow(operation.status);
  output.print(`Operation ${operation.id}${describeWork(operation)} ${status}: ${processed} of ${plural(total ?? processed, 'instance')} processed`);
  const counts = Object.entries(operation.summary).filter(([, count]) => count > 0);
  if (counts.length) output.print(`  ${counts.map(([outcome, count]) => `${outcome} ${count}`).join(', ')}`);
  if (operation.error) output.print(`  ${colors.red('error')}: ${operation.error}`);
  const limit = options.results ?? 10;
  const shown = operation.instances.slice(0, limit);
  if (shown.length) {
    // The error column only when some instance faulted: most operations have none.
    // A trigger's results always have the transition columns; a migration's or a bulk action's only the
    // columns some result fills (a bulk cancel has no transition).
    const columns = RESULT_COLUMNS.filter((column) => column.always || (column.forTrigger && operation.kind === 'trigger') || shown.some((result) => result[column.field] !== undefined));
    const reasons = options.reasons ?? new Map<string, string>();
    // WHY: a fault's message, or the condition that stopped the instance; only when some row has one.
    const why = shown.some((result) => reasons.has(result.instanceId) || result.error !== undefined);
    output.print(
      '',
      output.table(
        [...columns.map((column) => column.title), ...(why ? ['WHY'] : [])],
        shown.map((result) => [...columns.map((column) => result[column.field]), ...(why ? [reasons.get(result.instanceId) ?? result.error] : [])]),
      ),
    );
    const more = processed - shown.length;
    if (more > 0) output.print(`… and ${more} more${operation.instances.length > shown.length ? ' (--results N shows more, --json all the operation keeps)' : ''}`);
  }
}

type OperationResult = ApiOperation['instances'][number];
const RESULT_COLUMNS: readonly { title: string; field: keyof Omit<OperationResult, 'trace'>; always?: true; forTrigger?: true }[] = [
  { title: 'INSTANCE', field: 'instanceId', always: true },
  { title: 'OUTCOME', field: 'outcome', always: true },
  { title: 'TRANSITION', field: 'transitionId', forTrigger: true },
  { title: 'FROM', field: 'fromStateId', forTrigger: true },
  { title: 'TO', field: 'toStateId', forTrigger: true },
];

/** What a migration or a bulk action does, in a few words (a trigger's operation id says enough). */
function describeWork(operation: ApiOperation): string {
  if (operation.migration) {
    const { workflowId, fromVersion, toVersion } = operation.migration;
    return ` (migrate ${workflowId} version ${fromVersion} → ${toVersion})`;
  }
  if (operation.bulk) {
    const { action, filter } = operation.bulk;
    return ` (${action} ${filter.workflowId} instances)`;
  }
  return '';
}

/**
 * A failed operation is an error of the API kind (exit code 3) once its summary has been shown; one whose
 * instances faulted ends with exit code 5, naming the first fault.
 */
export function failIfFailed(operation: ApiOperation): void {
  if (operation.status === 'failed') throw new OperationFailedError(`operation ${operation.id} failed${operation.error ? `: ${operation.error}` : ''}`);
  const faulted = faultedCount(operation);
  if (faulted > 0) {
    const first = operation.instances.find((result) => result.error !== undefined);
    throw new InstancesFaultedError(`${plural(faulted, 'instance')} faulted${first ? ` (${first.instanceId}: ${first.error})` : ''}`);
  }
}
