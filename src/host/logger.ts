/** @module A console logger for the local server: one line per event, secrets never included by callers. */
import type { Logger } from './trigger-activity-service';

export function createConsoleLogger(options: { quiet?: boolean } = {}): Logger {
  const line = (level: string, message: string, properties?: Record<string, unknown>) =>
    `${new Date().toISOString()} ${level} ${message}${properties ? ` ${JSON.stringify(properties)}` : ''}`;
  return {
    info: (message, properties) => {
      if (!options.quiet) console.log(line('info', message, properties));
    },
    warn: (message, properties) => console.warn(line('warn', message, properties)),
    error: (message, properties) => console.error(line('error', message, properties)),
  };
}

/** A logger that drops everything (tests that assert on other things). */
export const silentLogger: Logger = { info: () => {}, warn: () => {}, error: () => {} };
