/**
 * @module Errors that are handled, as written in a definition and as the engine classifies them: the
 * `retry` policy of `invokeExternalService` steps (and the workflow's default), and `onError` on a
 * transition or a state. A step error (model/step-error.ts) has a closed `type`, so `retry.retryOn` and `onError.when` can name
 * what they handle, and JSONata sees it as `error` (`{ type, message, status?, stepPath }`).
 */
import { z } from 'zod';
import { StepErrorType, type StepError } from '../model/step-error';
import { expressionSchema } from './step-schemas';
import { parseIsoDuration } from '../timers/timer-definition';

/** Attempts of one step, the first included: at most this many. */
export const MAX_RETRY_ATTEMPTS = 20;
/** The longest wait between two attempts (`maxDelay`, `Retry-After`): 1 day. */
export const MAX_RETRY_DELAY_IN_MS = 24 * 3600_000;
/**
 * How long one step may wait in place, all its waits together, while its instance's lease is held. A
 * wait that does not fit ends the decision: the instance records a pending retry and a durable timer
 * re-applies the trigger (README, "Errors that are handled").
 */
export const MAX_IN_PLACE_RETRY_WAIT_IN_MS = 30_000;

/** What a retry policy may retry: `http:429` honours `Retry-After`. */
export const RetryableError = { timeout: 'timeout', network: 'network', http5xx: 'http:5xx', http429: 'http:429' } as const;
export type RetryableError = (typeof RetryableError)[keyof typeof RetryableError];
const retryableErrors = Object.values(RetryableError) as [RetryableError, ...RetryableError[]];

export const RetryBackoff = { constant: 'constant', linear: 'linear', exponential: 'exponential' } as const;
export type RetryBackoff = (typeof RetryBackoff)[keyof typeof RetryBackoff];

function durationInMs(text: string): number | string {
  const duration = parseIsoDuration(text);
  if (typeof duration === 'string') return duration;
  const ms = duration.as('milliseconds');
  return ms > MAX_RETRY_DELAY_IN_MS ? `"${text}" is longer than the 1 day a retry may wait` : ms;
}

const retryDurationSchema = z
  .string()
  .min(1)
  .max(64)
  .superRefine((text, ctx) => {
    const ms = durationInMs(text);
    if (typeof ms === 'string') ctx.addIssue({ code: 'custom', message: ms });
  });

export const retryPolicySchema = z.strictObject({
  /** Attempts in all, the first included. */
  attempts: z.number().int().min(1).max(MAX_RETRY_ATTEMPTS),
  /** ISO 8601 duration: the wait after the first failed attempt. @default PT1S */
  initialDelay: retryDurationSchema.default('PT1S'),
  /** How the wait grows: the same, initialDelay × n, or initialDelay × 2^(n-1). @default exponential */
  backoff: z.enum(['constant', 'linear', 'exponential']).default('exponential'),
  /** ISO 8601 duration: no wait is longer (but a `Retry-After`, which is honoured up to 1 day). @default PT5M */
  maxDelay: retryDurationSchema.default('PT5M'),
  /** Each wait is moved at random by up to this fraction of it, either way. @default 0.2 */
  jitter: z.number().min(0).max(1).default(0.2),
  /** Which errors are retried. @default all four */
  retryOn: z
    .array(z.enum(retryableErrors))
    .min(1)
    .default([...retryableErrors]),
});
export type RetryPolicyInput = z.input<typeof retryPolicySchema>;
export type RetryPolicyDefinition = z.output<typeof retryPolicySchema>;

/** A retry policy with its durations in ms: what the outbound client is given. */
export interface RetryPolicy {
  readonly attempts: number;
  readonly initialDelayInMs: number;
  readonly backoff: RetryBackoff;
  readonly maxDelayInMs: number;
  readonly jitter: number;
  readonly retryOn: readonly RetryableError[];
}

export function retryPolicyOf(definition: RetryPolicyDefinition): RetryPolicy {
  return {
    attempts: definition.attempts,
    initialDelayInMs: durationInMs(definition.initialDelay) as number,
    backoff: definition.backoff,
    maxDelayInMs: durationInMs(definition.maxDelay) as number,
    jitter: definition.jitter,
    retryOn: definition.retryOn,
  };
}

/**
 * The wait after failed attempt `attempt` (1 = the first), before jitter: constant, linear or doubling
 * from `initialDelayInMs`, at most `maxDelayInMs`.
 */
export function backoffDelayInMs(policy: RetryPolicy, attempt: number): number {
  const factor = policy.backoff === 'constant' ? 1 : policy.backoff === 'linear' ? attempt : 2 ** Math.min(attempt - 1, 40);
  return Math.min(policy.maxDelayInMs, policy.initialDelayInMs * factor);
}

/** `delay` moved at random by up to `jitter` of it either way (never below 0, never past maxDelay). */
export function withJitter(policy: RetryPolicy, delayInMs: number, random: () => number = Math.random): number {
  if (policy.jitter === 0) return delayInMs;
  const spread = delayInMs * policy.jitter;
  return Math.max(0, Math.min(policy.maxDelayInMs, Math.round(delayInMs - spread + random() * 2 * spread)));
}

const stepErrorTypes = Object.values(StepErrorType) as [StepErrorType, ...StepErrorType[]];

export const onErrorSchema = z.strictObject({
  /** The error types it handles. @default every type */
  when: z.array(z.enum(stepErrorTypes)).min(1).optional(),
  /** Where the instance goes instead of faulting. */
  targetStateId: z.string().min(1).max(128),
  /** Context keys set first, each from a JSONata expression that sees `error` besides the usual scope. */
  setContext: z.record(z.string().min(1).max(256), expressionSchema).optional(),
});
export type OnErrorDefinition = z.infer<typeof onErrorSchema>;

export function handles(onError: OnErrorDefinition | undefined, error: StepError): boolean {
  return onError !== undefined && (onError.when === undefined || onError.when.includes(error.type));
}
