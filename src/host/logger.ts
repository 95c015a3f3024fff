/**
 * @module A console logger for the local server: one line per event, secrets never included by callers.
 * Messages can carry trigger data (a workflow's `log` action renders it), so control characters are
 * escaped (a newline in a trigger cannot forge a second log line) and each line is capped in length.
 */
import { capText, escapeLogText } from '../engine/log-text';
import type { Logger } from './trigger-activity-service';

export { escapeLogText };

/** Characters of one log line; the rest is cut, saying how much. */
export const MAX_LOG_LINE_LENGTH = 8192;

function capped(line: string): string {
  return capText(line, MAX_LOG_LINE_LENGTH);
}

function propertiesText(properties: Record<string, unknown>): string {
  try {
    // JSON escapes control characters, and U+2028/2029 too since ES2019.
    return escapeLogText(JSON.stringify(properties));
  } catch {
    return '{"unserialisable":true}';
  }
}

export interface ConsoleLoggerOptions {
  quiet?: boolean;
  /** Where lines go. @default console.log for info, console.warn and console.error */
  write?: (level: 'info' | 'warn' | 'error', line: string) => void;
}

const consoleWrite = (level: 'info' | 'warn' | 'error', line: string) => (level === 'info' ? console.log(line) : level === 'warn' ? console.warn(line) : console.error(line));

export function createConsoleLogger(options: ConsoleLoggerOptions = {}): Logger {
  const write = options.write ?? consoleWrite;
  const line = (level: string, message: string, properties?: Record<string, unknown>) =>
    capped(`${new Date().toISOString()} ${level} ${escapeLogText(message)}${properties ? ` ${propertiesText(properties)}` : ''}`);
  return {
    info: (message, properties) => {
      if (!options.quiet) write('info', line('info', message, properties));
    },
    warn: (message, properties) => write('warn', line('warn', message, properties)),
    error: (message, properties) => write('error', line('error', message, properties)),
  };
}

/** A logger that drops everything (tests that assert on other things). */
export const silentLogger: Logger = { info: () => {}, warn: () => {}, error: () => {} };
