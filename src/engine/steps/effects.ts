/**
 * @module The effects a decision may use: the clock, outbound HTTP, an abort signal and the runtime's word on
 * entering a state with `capacity` (a read: deciding writes nothing); nothing else.
 * A decision may be made more than once for one delivery (a 412, a lost lease, a crash, a dry run), so:
 * conditions call `http` once per decision made (they must be reads); actions call `actionHttp`, which the
 * runtime journals per delivery and step (once within one engine, at least once across processes); the
 * clock is read again each time. Logging is not an effect of deciding: `log` actions add lines to the
 * Decision, which the runtime emits once, after the save (docs/architecture.md, "What deciding guarantees").
 */
import type { InstanceStatus, TriggerOutcome } from '../model/enums';
import type { JsonObject } from '../model/json';
import { escapeLogText } from '../model/log-text';
import type { Trigger } from '../model/trigger';
import type { ExternalServiceClient } from './outbound-port';

export interface EngineLogger {
  info(message: string, properties?: Record<string, unknown>): void;
  warn(message: string, properties?: Record<string, unknown>): void;
  error(message: string, properties?: Record<string, unknown>): void;
}

export interface Effects {
  now(): Date;
  /** Outbound HTTP for conditions, which are reads: a re-decision may call again. */
  readonly http: ExternalServiceClient;
  /**
   * Outbound HTTP for the action step at `location` (its description, e.g. `entry action of state "b"
   * [0] (invokeExternalService)`): the runtime journals the response per delivery, so a decision re-made
   * after a 412 or a lost lease replays it instead of calling again. @default http
   */
  actionHttp?(location: string): ExternalServiceClient;
  /** Aborted when the work must stop (e.g. the lease was lost); passed on to outbound calls. */
  readonly signal?: AbortSignal;
  /**
   * Asked once a transition into another state is chosen and its entry conditions hold, before any step
   * runs: an outcome that stops the trigger there (a full state with `capacity`: `capacityQueued` or
   * `capacityTimeout`, no action run), or undefined to go on. Absent: nothing stops it. A read: the verdict
   * is the state's row as read, recorded as the decision's admission request, which the run loop reserves
   * after deciding (admission/admission-protocol.ts), deciding again when the row changed meanwhile.
   */
  beforeEntering?(toStateId: string, trigger: Trigger): Promise<TriggerOutcome | undefined>;
  /**
   * Asked when an automatic transition into another state would be taken (its conditions and the
   * target's entry conditions hold): the target's `capacity` verdict, undefined when none applies. Not
   * admitted: the transition is not taken, as if its conditions were false (the runtime queues the
   * instance to take its automatic transitions again when room frees). Absent: nothing stops it. A read,
   * as beforeEntering: the runtime reserves the verdict after deciding.
   */
  automaticEntry?(toStateId: string, entering: AutomaticEntry): Promise<{ readonly admitted: boolean; readonly detail: string } | undefined>;
}

/** The instance as an automatic transition would take it into a state: what a `capacity` key reads. */
export interface AutomaticEntry {
  readonly fromStateId: string;
  readonly context: JsonObject;
  readonly status: InstanceStatus;
  /** The change's trigger (null for a creation, a recovery, a migration). */
  readonly trigger: Trigger | null;
}

export const silentLogger: EngineLogger = { info() {}, warn() {}, error() {} };

/** A console logger, used when no logger is given; messages escaped so each is one line. */
export const consoleLogger: EngineLogger = {
  info: (message, properties) => console.info(escapeLogText(message), properties ?? ''),
  warn: (message, properties) => console.warn(escapeLogText(message), properties ?? ''),
  error: (message, properties) => console.error(escapeLogText(message), properties ?? ''),
};
