/** @module The engine's options bag: every field optional with a default, resolved once at construction. */
import { builtInRegistry, type Registry } from '../steps/registry';
import type { OperationCost } from '../model';
import { consoleLogger, type EngineLogger } from '../steps/effects';
import { refusingExternalServiceClient, type ExternalServiceClient } from '../steps/outbound-port';
import { resolveEventDeliveryPolicy, type EventDeliveryPolicy } from '../events/delivery-policy';

/** Delivery of lifecycle events to the workflows' subscriptions (events/). */
export interface EventOptions {
  /**
   * Outbound HTTP for subscribers: the same pipeline as invokeExternalService (allow-list, timeout,
   * managed identity), best without retries of its own (the delivery policy retries). @default EngineOptions.http
   */
  http?: ExternalServiceClient;
  /** Attempts, backoff and timeout. @default defaultEventDeliveryPolicy (12 attempts over hours) */
  policy?: Partial<EventDeliveryPolicy>;
  /** Put before `/signalbox/workflows/<id>` in each event's `source` (the deployment's name). @default '' */
  sourcePrefix?: string;
}

export interface Clock {
  now(): Date;
  /**
   * Optional: runs `callback` when this clock reaches `at`. Test clocks implement it (ManualClock in
   * `signalbox/testing`), so the engine's in-process timers follow them; without it the engine uses
   * real timers (setTimeout) against `now()`.
   */
  setTimer?(at: Date, callback: () => Promise<void>): void;
}

export interface EngineOptions {
  /** @default the system clock */
  clock?: Clock;
  /** Ids of instances and triggers created without one. @default crypto.randomUUID */
  newId?: () => string;
  /** Condition and action types. @default the built-ins */
  registry?: Registry;
  /**
   * Outbound HTTP for invokeExternalService: `createOutboundClient({ allowedHosts })` from src/outbound
   * (allow-list, retries, managed identity, size limit). @default a client that refuses every call, so
   * those steps fault their instance
   */
  http?: ExternalServiceClient;
  /** @default console */
  logger?: EngineLogger;
  /** @default 60 */
  leaseDurationInSeconds?: number;
  /** How long to wait for a busy instance lease. @default 60000 */
  maxLeaseWaitInMs?: number;
  /** Workflow versions kept in memory (they are immutable). @default 100 */
  definitionCacheSize?: number;
  /** Reload-and-reprocess rounds after a concurrent write (412) before giving up. @default 5 */
  maxSaveAttempts?: number;
  events?: EventOptions;
  /** The key sensitive search fields are hashed with (HMAC-SHA256); without it they are left unindexed. */
  searchHmacKey?: string;
  /** How long a concurrency slot outlives its holder's last renewal (a crashed worker's slot frees itself after). @default 60000 */
  flowSlotTtlInMs?: number;
  /**
   * What the application being worked on has sent so far (the host counts requests: decision 0021), read
   * at each save so the instance carries running totals (Instance.cost). Absent: instances carry none.
   */
  costSoFar?: () => OperationCost | undefined;
}

export interface ResolvedEngineOptions {
  readonly clock: Clock;
  readonly newId: () => string;
  readonly registry: Registry;
  readonly http: ExternalServiceClient;
  readonly logger: EngineLogger;
  readonly leaseDurationInSeconds: number;
  readonly maxLeaseWaitInMs: number;
  readonly definitionCacheSize: number;
  readonly maxSaveAttempts: number;
  readonly searchHmacKey?: string;
  readonly flowSlotTtlInMs?: number;
  readonly costSoFar?: () => OperationCost | undefined;
  readonly events: { readonly http: ExternalServiceClient; readonly policy: EventDeliveryPolicy; readonly sourcePrefix: string };
}

export function resolveEngineOptions(options: EngineOptions = {}): ResolvedEngineOptions {
  return {
    clock: options.clock ?? { now: () => new Date() },
    newId: options.newId ?? (() => globalThis.crypto.randomUUID()),
    registry: options.registry ?? builtInRegistry(),
    http: options.http ?? refusingExternalServiceClient,
    logger: options.logger ?? consoleLogger,
    leaseDurationInSeconds: options.leaseDurationInSeconds ?? 60,
    maxLeaseWaitInMs: options.maxLeaseWaitInMs ?? 60_000,
    definitionCacheSize: Math.max(1, options.definitionCacheSize ?? 100),
    maxSaveAttempts: Math.max(1, options.maxSaveAttempts ?? 5),
    ...(options.searchHmacKey ? { searchHmacKey: options.searchHmacKey } : {}),
    ...(options.flowSlotTtlInMs !== undefined ? { flowSlotTtlInMs: options.flowSlotTtlInMs } : {}),
    ...(options.costSoFar ? { costSoFar: options.costSoFar } : {}),
    events: {
      http: options.events?.http ?? options.http ?? refusingExternalServiceClient,
      policy: resolveEventDeliveryPolicy(options.events?.policy),
      sourcePrefix: options.events?.sourcePrefix ?? '',
    },
  };
}
