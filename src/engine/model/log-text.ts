/**
 * @module Text that goes into log lines. A workflow's `log` action renders trigger data into its message,
 * so line-based sinks escape control characters (a newline cannot forge a second line) and messages
 * are capped.
 */

/** Characters of a `log` action's rendered message. */
export const MAX_LOG_MESSAGE_LENGTH = 4096;

const controlCharacters = /[\u0000-\u001f\u007f\u2028\u2029]/g;

/** Escapes what would break a line (newlines, other control characters) the way JSON escapes it. */
export function escapeLogText(text: string): string {
  return text.replace(controlCharacters, (char) => {
    switch (char) {
      case '\n':
        return '\\n';
      case '\r':
        return '\\r';
      case '\t':
        return '\\t';
      default:
        return `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
    }
  });
}

/** `text` cut to `limit` characters, saying how many more there were. */
export function capText(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit)}… (${text.length - limit} more characters)`;
}
