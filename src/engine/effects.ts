/** @module The processor's only door to the outside world (time, ids, outbound HTTP, logging). */
import { escapeLogText } from './log-text';
import type { ExternalServiceClient } from './outbound-port';
import type { Registry } from './registry';

export interface EngineLogger {
  info(message: string, properties?: Record<string, unknown>): void;
  warn(message: string, properties?: Record<string, unknown>): void;
  error(message: string, properties?: Record<string, unknown>): void;
}

export interface Effects {
  now(): Date;
  newId(): string;
  readonly http: ExternalServiceClient;
  readonly log: EngineLogger;
  readonly registry: Registry;
  /** Aborted when the work must stop (e.g. the lease was lost); passed on to outbound calls. */
  readonly signal?: AbortSignal;
}

export const silentLogger: EngineLogger = { info() {}, warn() {}, error() {} };

/** A console logger, used when no logger is given; messages escaped so each is one line. */
export const consoleLogger: EngineLogger = {
  info: (message, properties) => console.info(escapeLogText(message), properties ?? ''),
  warn: (message, properties) => console.warn(escapeLogText(message), properties ?? ''),
  error: (message, properties) => console.error(escapeLogText(message), properties ?? ''),
};
