/**
 * @module The local server's logger: pino, one JSON object per line on stdout (level, time, msg and the
 * event's properties), so the access log and the engine's events can be read by tools. Callers never
 * pass secrets. Messages and properties can carry trigger data (a workflow's `log` action renders it):
 * JSON escapes newlines, so none can forge a line, and each message and property is capped, so no line
 * grows without bound. Secrets in URLs (userinfo, query values) are redacted from every message and
 * property (`redactSecrets`), whoever wrote them: a log line is the last place a key could leave by.
 */
import pino from 'pino';
import { capText } from '../../engine/model';
import { redactSecrets } from '../../engine/model';
import type { Logger } from '../operation-activity-service';

/** Characters of a log message; the rest is cut, saying how much. */
export const MAX_LOG_LINE_LENGTH = 8192;
/** Characters of one property's value (objects count as their JSON). */
export const MAX_LOG_PROPERTY_LENGTH = 2048;

function boundedProperties(properties: Record<string, unknown> | undefined): Record<string, unknown> {
  if (!properties) return {};
  const bounded: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(redactSecrets(properties))) {
    if (typeof value === 'string') {
      bounded[key] = capText(value, MAX_LOG_PROPERTY_LENGTH);
    } else if (value !== null && typeof value === 'object' && !(value instanceof Error)) {
      let json: string | undefined;
      try {
        json = JSON.stringify(value);
      } catch {
        json = undefined;
      }
      bounded[key] = json === undefined ? '[unserialisable]' : json.length > MAX_LOG_PROPERTY_LENGTH ? capText(json, MAX_LOG_PROPERTY_LENGTH) : value;
    } else {
      bounded[key] = value;
    }
  }
  return bounded;
}

export interface ConsoleLoggerOptions {
  quiet?: boolean;
  /** Where lines go (one JSON object each, newline-terminated). @default stdout */
  write?: (line: string) => void;
}

export function createConsoleLogger(options: ConsoleLoggerOptions = {}): Logger {
  const settings: pino.LoggerOptions = {
    level: options.quiet ? 'warn' : 'info',
    base: undefined,
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
  };
  const log = options.write ? pino(settings, { write: options.write }) : pino(settings);
  const message = (text: string) => capText(redactSecrets(text), MAX_LOG_LINE_LENGTH);
  return {
    info: (text, properties) => log.info(boundedProperties(properties), message(text)),
    warn: (text, properties) => log.warn(boundedProperties(properties), message(text)),
    error: (text, properties) => log.error(boundedProperties(properties), message(text)),
  };
}

/** A logger that drops everything (tests that assert on other things). */
export const silentLogger: Logger = { info: () => {}, warn: () => {}, error: () => {} };
