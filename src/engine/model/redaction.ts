/**
 * @module The one redaction of secrets that leave the outbound layer ("Secrets never leave").
 * A workflow's URLs may carry credentials: `https://user:password@host/...`, `?code=<function key>`,
 * `?sig=<SAS signature>`; and requests carry headers such as `Authorization`. Whatever describes a URL or a
 * request outside that layer (fault messages, decision traces, operation records, lifecycle events, log
 * lines, dry runs and so the console) passes through `redactSecrets` first.
 *
 * What is redacted, in every URL found in a text: the userinfo (`***@`), every query value (`?code=***`;
 * names are kept, they say what the service was asked), and the fragment. In objects, the values of the
 * known secret headers. What is not: path segments (a secret in a path cannot be told from a resource
 * name); put keys in the query, the userinfo or a header.
 *
 * It lives in the engine because the engine builds the fault messages; src/outbound and the hosts use it too.
 */

/** Shown instead of a secret. */
export const REDACTED = '***';

/** Header names (lower case) whose values are credentials. */
export const SECRET_HEADER_NAMES: ReadonlySet<string> = new Set([
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'x-functions-key',
  'x-api-key',
  'api-key',
  'ocp-apim-subscription-key',
  'x-ms-client-secret',
  'aeg-sas-key',
  'aeg-sas-token',
]);

/** A URL with a scheme, up to whitespace, a quote or an angle bracket. */
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>`]+/gi;
/** Punctuation that ends a sentence or a parenthesis rather than the URL. */
const TRAILING_PUNCTUATION = /[).,;:!?\]]+$/;

function redactUrl(url: string): string {
  const schemeEnd = url.indexOf('://') + 3;
  let rest = url.slice(schemeEnd);
  // The authority ends at the first '/', '?' or '#'; its userinfo, if any, at its last '@'.
  const authorityEnd = rest.search(/[/?#]/);
  const authority = authorityEnd < 0 ? rest : rest.slice(0, authorityEnd);
  const at = authority.lastIndexOf('@');
  if (at >= 0) rest = `${REDACTED}@${rest.slice(at + 1)}`;
  const hash = rest.indexOf('#');
  if (hash >= 0) rest = `${rest.slice(0, hash)}${hash < rest.length - 1 ? `#${REDACTED}` : '#'}`;
  const question = rest.indexOf('?');
  if (question >= 0) {
    const fragmentAt = rest.indexOf('#', question);
    const query = fragmentAt < 0 ? rest.slice(question + 1) : rest.slice(question + 1, fragmentAt);
    const fragment = fragmentAt < 0 ? '' : rest.slice(fragmentAt);
    const redactedQuery = query
      .split('&')
      .map((pair) => {
        if (pair === '') return pair;
        const equals = pair.indexOf('=');
        // A bare value (`?abc123`) may be the key itself.
        return equals < 0 ? REDACTED : `${pair.slice(0, equals)}=${REDACTED}`;
      })
      .join('&');
    rest = `${rest.slice(0, question)}?${redactedQuery}${fragment}`;
  }
  return url.slice(0, schemeEnd) + rest;
}

function redactText(text: string): string {
  if (!text.includes('://')) return text;
  return text.replace(URL_IN_TEXT, (match) => {
    const trailing = TRAILING_PUNCTUATION.exec(match)?.[0] ?? '';
    return redactUrl(match.slice(0, match.length - trailing.length)) + trailing;
  });
}

/**
 * The value with its secrets redacted: a string has every URL in it redacted (a bare URL is a text with
 * one URL); an array or a plain object is copied with each value redacted, and the values of secret
 * headers (by name, any case) replaced. Other values are returned as they are. Cheap when there is no
 * URL: a text without `://` is returned unscanned.
 */
export function redactSecrets<T>(value: T): T {
  return redactValue(value, 0) as T;
}

/** Deep enough for a request, an operation record or an event; deeper values are left as they are. */
const MAX_DEPTH = 16;

function redactValue(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return redactText(value);
  if (depth >= MAX_DEPTH || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => redactValue(item, depth + 1));
  const prototype = Object.getPrototypeOf(value) as unknown;
  if (prototype !== Object.prototype && prototype !== null) return value;
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    copy[key] = SECRET_HEADER_NAMES.has(key.toLowerCase()) && item !== undefined && item !== null ? REDACTED : redactValue(item, depth + 1);
  }
  return copy;
}
