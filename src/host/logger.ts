/**
 * @module The local server's logger: pino, one JSON object per line on stdout (level, time, msg and the
 * event's properties), so the access log and the engine's events can be read by tools. Callers never
 * pass secrets.
 */
import pino from 'pino';
import type { Logger } from './trigger-activity-service';

export function createConsoleLogger(options: { quiet?: boolean } = {}): Logger {
  const log = pino({
    level: options.quiet ? 'warn' : 'info',
    base: undefined,
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
  });
  return {
    info: (message, properties) => log.info(properties ?? {}, message),
    warn: (message, properties) => log.warn(properties ?? {}, message),
    error: (message, properties) => log.error(properties ?? {}, message),
  };
}

/** A logger that drops everything (tests that assert on other things). */
export const silentLogger: Logger = { info: () => {}, warn: () => {}, error: () => {} };
