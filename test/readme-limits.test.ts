/**
 * Issue 9, "Done when": the documentation states the limits in one table (docs/reference/limits.md, the
 * site's "Limits" page; the README was its home before issue 38). This keeps that table true: each row
 * the issue names (and the others listed) shows the figure the code enforces.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  EXPRESSION_DEADLINE_IN_MS,
  EXPRESSION_MEMORY_LIMIT_IN_MB,
  MAX_EXPRESSION_BUILT_SIZE,
  MAX_EXPRESSION_DEPTH,
  MAX_EXPRESSION_SEQUENCE,
  MAX_EXPRESSION_STRING_LENGTH,
} from '../src/engine/expressions';
import { EXPRESSION_CACHE_BUDGET_IN_BYTES } from '../src/engine/expressions';
import { MAX_INTERESTS_PER_INSTANCE, MAX_INTERESTS_PER_STATE } from '../src/engine/decide';
import { MAX_LOG_MESSAGE_LENGTH } from '../src/engine/model';
import { MAX_OPERATION_RESULTS, MAX_OPERATION_RESULTS_LENGTH, MAX_RESULT_ERROR_LENGTH } from '../src/engine/operations';
import { MAX_OUTBOX_ROWS_PER_CHANGE } from '../src/engine/model';
import { MAX_OFFER_TRACE_ENTRIES, MAX_RECENT_OFFERS } from '../src/engine/decide';
import { MAX_CONTEXT_PATCH_SIZE_IN_BYTES } from '../src/engine/model';
import { MAX_HISTORY_RECORD_BYTES, MAX_RECORDED_ANSWER_BYTES, MAX_RECORDED_CALLS, MAX_RECORDED_TRACE_ENTRIES } from '../src/engine/model';
import { MAX_SUBSCRIPTIONS_PER_WORKFLOW } from '../src/engine/definition';
import { MAX_DEBOUNCES_PER_WORKFLOW, MAX_DEBOUNCE_WAIT_IN_MS, MAX_FLOW_KEY_LENGTH, MAX_RATE_LIMITS_PER_WORKFLOW, MAX_RATE_LIMIT_PERIOD_IN_MS } from '../src/engine/definition';
import { DEFAULT_TRIGGER_PRIORITY, MAX_TRIGGER_PRIORITY, MIN_TRIGGER_PRIORITY } from '../src/engine/model';
import { MAX_CAUSAL_DEPTH, MAX_SUBJECTS_PER_TRIGGER, MAX_TRIGGER_SIZE_IN_BYTES } from '../src/engine/model';
import { MAX_CAUSAL_BUDGET, MAX_SELF_CAUSED_CHANGES_PER_MINUTE, SELF_CAUSED_WINDOW_IN_MS } from '../src/engine/decide';
import { MAX_TIMER_DELAY_IN_DAYS } from '../src/engine/timers';
import { MAX_RESPONSE_BODY_BYTES } from '../src/cli/api';
import { MAX_JSON_DEPTH } from '../src/host/http/request-body';
import { MAX_BODY_SIZE_IN_BYTES } from '../src/host/http/types';
import { MAX_WAIT_IN_SECONDS } from '../src/host/http/prefer-wait';
import { MAX_LOG_LINE_LENGTH, MAX_LOG_PROPERTY_LENGTH } from '../src/host/local/logger';
import { MAX_OPERATION_RESUMES } from '../src/host/local/operation-resumption';
import { APPLIED_TRIGGER_MEMORY } from '../src/engine/model';
import { MAX_AUTOMATIC_STEPS } from '../src/engine/definition';
import { MAX_CHECKPOINT_PENDING_LENGTH } from '../src/host/contracts/operation-activities';
import { DEFAULT_OPERATION_RETENTION_DAYS } from '../src/host/retention';
import { MAX_ENTITY_BYTES } from '../src/storage/entity-body';
import { DEFAULT_MAX_INSTANCE_BYTES } from '../src/engine/model';
import { DEFAULT_MAX_RESPONSE_BYTES } from '../src/outbound';
import { MAX_IN_PLACE_RETRY_WAIT_IN_MS, MAX_RETRY_ATTEMPTS, MAX_RETRY_DELAY_IN_MS } from '../src/engine/definition';
import { FAULT_CAUSE_LENGTH, MAX_CHILDREN_LISTED, MAX_FAULT_CAUSES, MAX_WAITING_SCAN } from '../src/engine/analysis';
import { MAX_CHILDREN_SCANNED, MAX_SLOT_KEYS_SCANNED, WAITING_SCAN_PAGE_SIZE } from '../src/engine/runtime';
import {
  MAX_CAPACITY_QUEUED_PER_KEY,
  MAX_CAPACITY_ROW_CHARS,
  MAX_CAPACITY_WAITS_PER_INSTANCE,
  MAX_CAPACITY_TIMEOUT_IN_MS,
  MAX_CONCURRENCY_LIMIT,
  MAX_CONCURRENCY_WAIT_IN_MS,
  MAX_QUEUED_PER_KEY,
  MAX_STATE_CAPACITY,
} from '../src/engine';
import {
  MAX_BUSINESS_KEY_LENGTH,
  MAX_ENCODED_STRING_BYTES,
  MAX_FILTER_CONDITIONS,
  MAX_FILTER_DEPTH,
  MAX_FILTER_LENGTH,
  MAX_IN_VALUES,
  MAX_INDEXES_PER_WORKFLOW,
  MAX_KEYWORD_VALUES,
  MAX_ORDERED_MATCHES,
  MAX_SEARCH_PAGE_SIZE,
} from '../src/engine/search';
import { DEFAULT_QUOTAS, MAX_FAN_OUT_BATCHES } from '../src/host/tenant-quotas';
import { DURABLE_PAGE_SIZE, MAX_BATCHES_IN_FLIGHT } from '../functions/operation-orchestrator';

const limitsPage = readFileSync(path.join(__dirname, '..', 'docs', 'reference', 'limits.md'), 'utf8');
const number = (value: number) => value.toLocaleString('en-US');
const mebibytes = (bytes: number) => `${bytes / 1024 / 1024} MiB`;

/** A table row with one space either side of each cell (prettier pads the columns to one width). */
const row = (line: string) => line.replace(/\s*(?<!\\)\|\s*/g, ' | ').trim();

/** The table of the "Limits" page, as its rows by their first cell. */
function limitsTable(): Map<string, string> {
  const rows = limitsPage
    .split('\n')
    .filter((line) => line.startsWith('| ') && !line.startsWith('| What') && !/^\|[\s|-]+\|$/.test(line))
    .map(row);
  return new Map(rows.map((line) => [line.split('|')[1]!.trim(), line]));
}

describe('the limits table of the documentation', () => {
  it('is one table, on the page titled "Limits"', () => {
    expect(limitsPage.match(/^# Limits$/gm)).toHaveLength(1);
    expect(limitsPage.match(/^\| What/gm)).toHaveLength(1);
    expect(limitsTable().size).toBeGreaterThan(10);
  });

  it.each([
    ['Expression time', [`${number(EXPRESSION_DEADLINE_IN_MS)} ms`, `deadline of ${EXPRESSION_DEADLINE_IN_MS} ms`]],
    ['Concurrency limit of a key (`flow.concurrency.limit`, or a run-time override)', [`| ${number(MAX_CONCURRENCY_LIMIT)} |`]],
    ['Wait for a concurrency slot (`flow.concurrency.maxWait`)', [`| ${MAX_CONCURRENCY_WAIT_IN_MS / 60_000} minutes |`]],
    ['Triggers queued per concurrency key', [`| ${MAX_QUEUED_PER_KEY} |`]],
    ['Instances per key in a state (`states.*.capacity.limit`)', [`| ${number(MAX_STATE_CAPACITY)} |`]],
    ['Wait for room in a full state (`states.*.capacity.timeout`)', [`| ${MAX_CAPACITY_TIMEOUT_IN_MS / (24 * 3600_000)} days |`]],
    ['Waits for room with a deadline timer, per instance (`capacityWaits`)', [`| ${MAX_CAPACITY_WAITS_PER_INSTANCE} |`]],
    ['Triggers queued per state and capacity key', [`| ${MAX_CAPACITY_QUEUED_PER_KEY}, and`, `at most ${number(MAX_CAPACITY_ROW_CHARS)} characters`]],
    [
      'Expression memory',
      [`${EXPRESSION_MEMORY_LIMIT_IN_MB} MB heap`, number(MAX_EXPRESSION_BUILT_SIZE), number(MAX_EXPRESSION_STRING_LENGTH), number(MAX_EXPRESSION_SEQUENCE), number(MAX_EXPRESSION_DEPTH)],
    ],
    ['Compiled-expression caches', [mebibytes(EXPRESSION_CACHE_BUDGET_IN_BYTES)]],
    ['Request body', [mebibytes(MAX_BODY_SIZE_IN_BYTES), '413']],
    ['JSON nesting of a body', [`${MAX_JSON_DEPTH} levels`, '400']],
    ['Trigger', [`${MAX_TRIGGER_SIZE_IN_BYTES / 1024} KiB`, `1-${MAX_SUBJECTS_PER_TRIGGER} subjects`]],
    ['Instance record (context, interests, applied trigger ids)', [mebibytes(DEFAULT_MAX_INSTANCE_BYTES), 'SIGNALBOX_MAX_INSTANCE_MB', mebibytes(MAX_ENTITY_BYTES), '413']],
    ['Interests per state (declared, plus those its conditions add)', [String(MAX_INTERESTS_PER_STATE)]],
    ['Interests per instance (its own id included)', [String(MAX_INTERESTS_PER_INSTANCE)]],
    ['Triggers raised by one change', [String(MAX_OUTBOX_ROWS_PER_CHANGE)]],
    ["Causal depth of follow-up work (a client's trigger or request 0; each raised trigger, timer due at once, child start and child notification +1)", [`| ${MAX_CAUSAL_DEPTH} |`]],
    [
      "Causal budget of one tree of follow-up work (a client's trigger or request starts one; each change spends 1 and shares the rest among its follow-up work)",
      [`| ${number(MAX_CAUSAL_BUDGET)} changes |`],
    ],
    ['Automatic transitions taken one after another in one change', [`| ${MAX_AUTOMATIC_STEPS} |`]],
    [
      'Self-caused changes of one instance without outside input',
      [`| ${MAX_SELF_CAUSED_CHANGES_PER_MINUTE} within a ${SELF_CAUSED_WINDOW_IN_MS === 60_000 ? 'minute' : `${SELF_CAUSED_WINDOW_IN_MS} ms`} |`],
    ],
    ['Subscriptions per workflow', [String(MAX_SUBSCRIPTIONS_PER_WORKFLOW)]],
    ['Trigger priority', [`${MIN_TRIGGER_PRIORITY}-${MAX_TRIGGER_PRIORITY} (${DEFAULT_TRIGGER_PRIORITY} when absent)`]],
    ['`flow.rateLimits` per workflow', [`| ${MAX_RATE_LIMITS_PER_WORKFLOW},`, number(MAX_RATE_LIMIT_PERIOD_IN_MS)]],
    ["A `flow` policy's key (rendered)", [`${number(MAX_FLOW_KEY_LENGTH)} characters`]],
    ['`flow.debounce` per workflow', [`| ${MAX_DEBOUNCES_PER_WORKFLOW} trigger names`, number(MAX_DEBOUNCE_WAIT_IN_MS)]],
    ['CLI: response body read', [mebibytes(MAX_RESPONSE_BODY_BYTES)]],
    ['Timer delay (`after`, or an `at` instant, from entering the state)', [`${number(MAX_TIMER_DELAY_IN_DAYS)} days`]],
    ['Outbound response body', [`${mebibytes(DEFAULT_MAX_RESPONSE_BYTES)} after decompression`]],
    [
      "A step's `retry` policy",
      [`${MAX_RETRY_ATTEMPTS} attempts`, `at most ${MAX_RETRY_DELAY_IN_MS === 24 * 3600_000 ? '1 day' : `${MAX_RETRY_DELAY_IN_MS} ms`}`, `${MAX_IN_PLACE_RETRY_WAIT_IN_MS / 1000} s of waits in place`],
    ],
    ['`Prefer: wait`', [`${MAX_WAIT_IN_SECONDS} s`]],
    ['Per-instance results on an operation', [number(MAX_OPERATION_RESULTS), number(MAX_OPERATION_RESULTS_LENGTH), `${MAX_RESULT_ERROR_LENGTH} characters`]],
    ['Start-ups in a row that resume one operation without it getting further', [`| ${MAX_OPERATION_RESUMES} |`]],
    ['Recent triggers kept per instance that changed nothing (`GET /api/instances/{id}/offers`)', [`| ${MAX_RECENT_OFFERS}, each with at most ${MAX_OFFER_TRACE_ENTRIES} trace entries |`]],
    ['Context patch of a recovery', [`${MAX_CONTEXT_PATCH_SIZE_IN_BYTES / 1024} KiB`]],
    [
      'History record per entry (what came in and what changed)',
      [`${MAX_HISTORY_RECORD_BYTES / 1024} KiB in all`, `${MAX_RECORDED_TRACE_ENTRIES} conditions`, `${MAX_RECORDED_CALLS} calls`, `up to ${MAX_RECORDED_ANSWER_BYTES / 1024} KiB`],
    ],
    ['Applied triggers kept in the instance record', [`the newest ${APPLIED_TRIGGER_MEMORY}`]],
    ['Instance ids a checkpoint lists (the batches in flight)', [`${number(MAX_CHECKPOINT_PENDING_LENGTH)} characters`]],
    ['Finished operation records', [`${DEFAULT_OPERATION_RETENTION_DAYS} days`]],
    ['Triggers a tenant sends through the API', [`${number(DEFAULT_QUOTAS.triggersPerSecond)} a second, bursts of ${number(DEFAULT_QUOTAS.triggerBurst)}`, '429']],
    ['Instances a tenant has alive', [`| ${number(DEFAULT_QUOTAS.instancesAlive)} (`, '409']],
    ['Operations a tenant has running at once', [`| ${number(DEFAULT_QUOTAS.operationsRunning)} (`, '429']],
    [
      'Batches one durable fan-out runs at once',
      [`| ${MAX_BATCHES_IN_FLIGHT} of ${DURABLE_PAGE_SIZE} instances`, `${MAX_FAN_OUT_BATCHES === MAX_BATCHES_IN_FLIGHT ? '' : 'MAX_FAN_OUT_BATCHES differs'}`],
    ],
    ['`log` action message (rendered)', [`${number(MAX_LOG_MESSAGE_LENGTH)} characters`]],
    ['Instances one workflow\'s "why" counts read (`GET /api/workflows/{id}/waiting`)', [`${number(MAX_WAITING_SCAN)}, ${WAITING_SCAN_PAGE_SIZE} a page`]],
    ['Children one instance\'s "why" reads (`GET /api/instances/{id}/waiting`)', [`${number(MAX_CHILDREN_SCANNED)}, the first ${MAX_CHILDREN_LISTED} running ones named`]],
    ['Concurrency keys one instance\'s "why" reads (`GET /api/instances/{id}/waiting`)', [`${number(MAX_SLOT_KEYS_SCANNED)} keys, one list request`]],
    ['Fault causes per group of the "why" counts', [`the ${MAX_FAULT_CAUSES} most frequent, each by its first ${FAULT_CAUSE_LENGTH} characters`]],
    [
      'Search filter (`filter`, guide "Finding instances")',
      [`${number(MAX_FILTER_LENGTH)} characters`, `${MAX_FILTER_DEPTH} levels deep`, `${MAX_FILTER_CONDITIONS} conditions`, `${MAX_IN_VALUES} values in one \`in\``],
    ],
    ['Declared search `indexes` per workflow version', [`| ${MAX_INDEXES_PER_WORKFLOW} |`]],
    ['Values of one `keyword` index per instance', [`| ${MAX_KEYWORD_VALUES} |`]],
    ['String values in a search index key', [`the first ${MAX_ENCODED_STRING_BYTES} bytes`]],
    ['Business key', [`${MAX_BUSINESS_KEY_LENGTH} characters`]],
    ['Instances on one page of a search (`maxPageSize`)', [`| ${number(MAX_SEARCH_PAGE_SIZE)} |`]],
    ['Matches of a search sorted in memory (an `orderBy` its index range does not give)', [`| ${number(MAX_ORDERED_MATCHES)} |`]],
    ['Log event (local server, one JSON line)', [`message ${number(MAX_LOG_LINE_LENGTH)} characters`, `each property ${number(MAX_LOG_PROPERTY_LENGTH)}`]],
  ] as const)('states the limit of "%s" as the code does', (what, figures) => {
    const row = limitsTable().get(what);
    expect(row).toBeDefined();
    for (const figure of figures) expect(row).toContain(figure);
  });
});
