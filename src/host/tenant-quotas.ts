/**
 * @module Noisy-neighbour quotas, per tenant: triggers accepted per second (a token bucket with a burst),
 * instances alive, and operations running at once, each with a default from the app settings and an
 * override per tenant (the tenant registry's `quotas`). A request over a quota is refused before anything
 * is recorded: 429 with `Retry-After` for the trigger rate and for operations running (both free up by
 * themselves, so waiting helps), 409 for instances alive (only finishing or deleting instances frees it:
 * a client that retried a 429 after `Retry-After` would spin).
 *
 * Exactness: the token bucket lives in the process, so on Azure each worker has its own (per worker, N
 * workers accept up to N times the rate); instances alive are counted from storage (QuotaCounts), and the
 * count is read again whenever the estimate reaches the quota, so the quota holds up to requests racing
 * within one count; operations running are the local runner's own exact count on the local server and a
 * storage count on Azure.
 *
 * Triggers raised by instances, due timers and child starts are never refused: refusing them would lose
 * follow-up work that was already promised (they still count toward the operations running).
 */
import { z } from 'zod';
import { ValidationError, formatPath } from '../engine/model';
import { problem } from './problem';
import type { ApiResponse } from './http/types';
import { readSetting, type Environment } from './settings';
import { TokenBucket, type TokenRate } from '../outbound';

/** The tenant `/api/...` serves. */
export { DEFAULT_TENANT_ID } from '../storage/names';

export interface Quotas {
  /** Triggers the API accepts per second, sustained (the bucket's refill rate; fractions allowed). */
  readonly triggersPerSecond: number;
  /** Triggers the API accepts at once after a quiet spell (the bucket's size). */
  readonly triggerBurst: number;
  /** Instances not `complete` or `cancelled`: creating one more is refused (409). */
  readonly instancesAlive: number;
  /** Operations `notStarted` or `running`: a trigger, migration or bulk action beyond it is refused (429). */
  readonly operationsRunning: number;
  /** Batches (of 50 instances) one durable fan-out of the tenant runs at once (at most MAX_FAN_OUT_BATCHES). */
  readonly fanOutBatches: number;
  /**
   * Instance applications the local server's runner starts per second for the tenant (its broadcasts paced);
   * absent: SIGNALBOX_RUNNER_APPLICATIONS_PER_SECOND_PER_TENANT, else no pace. Not on Azure (fanOutBatches is).
   */
  readonly applicationsPerSecond?: number;
}

/** The durable fan-out's own window (functions/operation-orchestrator.ts MAX_BATCHES_IN_FLIGHT): a quota may only narrow it. */
export const MAX_FAN_OUT_BATCHES = 8;

export const DEFAULT_QUOTAS: Quotas = {
  triggersPerSecond: 100,
  triggerBurst: 500,
  instancesAlive: 100_000,
  operationsRunning: 1000,
  fanOutBatches: MAX_FAN_OUT_BATCHES,
};

/** The setting each default comes from (fanOutBatches has none: a tenant override narrows it). */
export const QUOTA_SETTINGS = {
  triggersPerSecond: 'SIGNALBOX_QUOTA_TRIGGERS_PER_SECOND',
  triggerBurst: 'SIGNALBOX_QUOTA_TRIGGER_BURST',
  instancesAlive: 'SIGNALBOX_QUOTA_INSTANCES_ALIVE',
  operationsRunning: 'SIGNALBOX_QUOTA_OPERATIONS_RUNNING',
} as const;

const count = z.number().int().min(1).max(1_000_000_000);
/** One tenant's overrides, as the tenant registry holds them (`Record<string, number>`): unknown names are refused. */
export const quotaOverridesSchema = z.strictObject({
  triggersPerSecond: z.number().min(0.001).max(1_000_000).optional(),
  triggerBurst: count.optional(),
  instancesAlive: count.optional(),
  operationsRunning: count.optional(),
  fanOutBatches: z.number().int().min(1).max(MAX_FAN_OUT_BATCHES).optional(),
  applicationsPerSecond: z.number().min(0.001).max(1_000_000).optional(),
});

function parseOrThrow<Schema extends z.ZodType>(schema: Schema, input: unknown, message: string): z.output<Schema> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw new ValidationError(
    message,
    result.error.issues.flatMap((issue) =>
      issue.code === 'unrecognized_keys' ? issue.keys.map((key) => ({ path: formatPath([...issue.path, key]), message: issue.message })) : [{ path: formatPath(issue.path), message: issue.message }],
    ),
  );
}

/** The defaults, from the settings; a setting that is not a number in range fails the start-up, naming it. */
export function quotasFromEnv(env: Environment = process.env): Quotas {
  const values: Record<string, number> = {};
  for (const [name, setting] of Object.entries(QUOTA_SETTINGS)) {
    const text = readSetting(setting, env);
    if (text !== undefined) values[name] = Number(text);
  }
  try {
    return { ...DEFAULT_QUOTAS, ...parseOrThrow(quotaOverridesSchema, values, 'A quota setting is invalid') };
  } catch (error) {
    const issue = error instanceof ValidationError ? error.issues[0] : undefined;
    const setting = issue ? QUOTA_SETTINGS[issue.path as keyof typeof QUOTA_SETTINGS] : undefined;
    throw new ValidationError(`${setting ?? 'A quota setting'} is invalid: ${issue?.message ?? String(error)}`, issue ? [{ path: setting ?? issue.path, message: issue.message }] : []);
  }
}

/** A tenant's quotas: its overrides (validated: they are outside input) over the defaults. */
export function resolveQuotas(defaults: Quotas, overrides: Readonly<Record<string, number>> = {}): Quotas {
  return { ...defaults, ...parseOrThrow(quotaOverridesSchema, overrides, 'The tenant quotas are invalid') };
}

/** How a gate counts what is alive or running; each may stop counting at `limit`. */
export interface QuotaCounts {
  instancesAlive(limit: number): Promise<number>;
  operationsRunning(limit: number): Promise<number>;
}

/**
 * A count read from storage, reused while it is fresh and far from the quota: the estimate (the count
 * plus what this process admitted since) is trusted for RECOUNT_AFTER_IN_MS; once it reaches the quota the
 * count is read again (at most once per RECOUNT_AT_QUOTA_AFTER_IN_MS) before anything is refused. So a
 * request is refused only on a count at most that old, and far from the quota no request reads anything.
 */
export class CachedCount {
  static readonly RECOUNT_AFTER_IN_MS = 5000;
  static readonly RECOUNT_AT_QUOTA_AFTER_IN_MS = 1000;
  private counted?: { readonly value: number; readonly atInMs: number };
  private admittedSince = 0;
  private counting?: Promise<number>;

  constructor(
    private readonly countUpTo: (limit: number) => Promise<number>,
    private readonly nowInMs: () => number = Date.now,
  ) {}

  /** True when one more fits under `limit`; counts it as admitted when it does. */
  async admit(limit: number): Promise<boolean> {
    const age = this.counted ? this.nowInMs() - this.counted.atInMs : Infinity;
    const estimate = this.counted ? this.counted.value + this.admittedSince : Infinity;
    const stale = age >= CachedCount.RECOUNT_AFTER_IN_MS || (estimate >= limit && age >= CachedCount.RECOUNT_AT_QUOTA_AFTER_IN_MS);
    // Below the quota the estimate answers and the count is refreshed beside the request: a request waits for
    // a count (which can read many rows) only when there is none yet or it would be refused on the estimate.
    if (stale && estimate < limit) void this.recount(limit).catch(() => undefined);
    else if (stale) await this.recount(limit);
    if (this.counted!.value + this.admittedSince >= limit) return false;
    this.admittedSince += 1;
    return true;
  }

  private async recount(limit: number): Promise<void> {
    // Requests arriving together share one read.
    this.counting ??= this.countUpTo(limit).finally(() => (this.counting = undefined));
    const startedAt = this.nowInMs();
    const value = await this.counting;
    if (!this.counted || this.counted.atInMs <= startedAt) {
      this.counted = { value, atInMs: startedAt };
      this.admittedSince = 0;
    }
  }
}

/** Refusals name the quota, the tenant and where the quota is set, never any data. */
function quotaProblem(status: 409 | 429, detail: string, retryAfterInSeconds?: number): ApiResponse {
  const refused = problem(status, status === 429 ? 'Too many requests' : 'Quota exceeded', detail);
  return retryAfterInSeconds === undefined ? refused : { ...refused, headers: { ...refused.headers, 'retry-after': String(retryAfterInSeconds) } };
}

/** One tenant's quotas in this process: the API routes ask it before they record anything. */
export class TenantQuotaGate {
  private readonly triggerRate: TokenRate;
  private readonly bucket: TokenBucket;
  private readonly instances: CachedCount;
  private readonly operations: CachedCount;

  constructor(
    readonly tenantId: string,
    readonly quotas: Quotas,
    counts: QuotaCounts,
    private readonly nowInMs: () => number = Date.now,
  ) {
    this.triggerRate = { limit: quotas.triggersPerSecond, periodInMs: 1000, burst: quotas.triggerBurst };
    this.bucket = new TokenBucket(this.triggerRate, nowInMs());
    this.instances = new CachedCount((limit) => counts.instancesAlive(limit), nowInMs);
    this.operations = new CachedCount((limit) => counts.operationsRunning(limit), nowInMs);
  }

  /** A trigger from the API: a token of the trigger rate, then under the operations-running quota. Undefined: go ahead. */
  async admitTrigger(): Promise<ApiResponse | undefined> {
    // The rate first: it is in memory, so a flood over it costs no count and is not counted as running.
    return this.takeTriggerToken() ?? this.admitOperation();
  }

  /**
   * The trigger rate alone, from memory: the refusal, or undefined with a token taken. For a route that
   * checks something in storage before it admits the operation (admitOperation), so that a flood over the
   * rate costs storage nothing.
   */
  takeTriggerToken(): ApiResponse | undefined {
    const token = this.bucket.take(this.triggerRate, this.nowInMs());
    if (token.taken) return undefined;
    return quotaProblem(
      429,
      `Tenant "${this.tenantId}" sends more than ${this.quotas.triggersPerSecond} triggers per second (burst ${this.quotas.triggerBurst}); nothing was recorded: send it again after Retry-After`,
      Math.max(1, Math.ceil(token.waitInMs / 1000)),
    );
  }

  /** A migration or bulk action (and, through admitTrigger, a trigger): under the operations-running quota. */
  async admitOperation(): Promise<ApiResponse | undefined> {
    if (await this.operations.admit(this.quotas.operationsRunning)) return undefined;
    return quotaProblem(429, `Tenant "${this.tenantId}" has ${this.quotas.operationsRunning} operations running, its quota; nothing was recorded: send it again after Retry-After`, 1);
  }

  /** A new instance from the API: under the instances-alive quota. */
  async admitInstance(): Promise<ApiResponse | undefined> {
    if (await this.instances.admit(this.quotas.instancesAlive)) return undefined;
    return quotaProblem(409, `Tenant "${this.tenantId}" has ${this.quotas.instancesAlive} instances alive, its quota; nothing was created: finish, cancel or delete instances first`);
  }
}
