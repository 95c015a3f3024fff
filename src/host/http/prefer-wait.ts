/**
 * @module `Prefer: wait=<seconds>` (RFC 7240 §4.3) on the trigger routes and the operation poll: the
 * client would rather wait up to that long for the finished operation than poll for it.
 *
 * Preferences are hints (RFC 7240 §2): a `Prefer` header without a usable `wait` (absent, malformed,
 * negative) is ignored, not refused, and the answer is the usual one without `Preference-Applied`.
 * A longer wait than MAX_WAIT_IN_SECONDS is shortened to it (Azure's front end ends HTTP requests at
 * 230 s; a minute leaves ample room), and `Preference-Applied: wait=<the seconds honoured>` says so.
 */
import { z } from 'zod';
import type { ApiRequest } from './types';

/** The longest wait honoured. */
export const MAX_WAIT_IN_SECONDS = 60;

/** delta-seconds (RFC 9110 §5.6.2-ish: 1*DIGIT), bounded so `Number` stays exact. */
const waitValueSchema = z
  .string()
  .regex(/^\d{1,9}$/)
  .transform(Number);

/** The schema of the request header, for route contracts (the OpenAPI document). */
export const preferWaitHeaders = z.object({
  Prefer: z
    .string()
    .optional()
    .meta({
      description: `RFC 7240. \`wait=<seconds>\`: answer 200 with the finished operation if it finishes within that time (at most ${MAX_WAIT_IN_SECONDS}), else 202 as without it. Other preferences are ignored.`,
      example: 'wait=10',
    }),
});

/**
 * The seconds to wait, from the request's `Prefer` header(s), or undefined when it asks for none.
 * Preferences are comma-separated `token[=value]` with optional `;` parameters; tokens are
 * case-insensitive and values may be quoted. The first `wait` counts (RFC 7240 §2: a repeated
 * preference is the first one).
 */
export function requestedWaitInSeconds(request: Pick<ApiRequest, 'headers'>): number | undefined {
  const header = request.headers.get('prefer');
  if (!header) return undefined;
  for (const preference of header.split(',')) {
    const [token] = preference.split(';');
    const match = /^\s*([^=\s]+)\s*(?:=\s*(?:"([^"]*)"|([^\s"]*)))?\s*$/.exec(token ?? '');
    if (!match || match[1]!.toLowerCase() !== 'wait') continue;
    const parsed = waitValueSchema.safeParse(match[2] ?? match[3] ?? '');
    return parsed.success ? Math.min(parsed.data, MAX_WAIT_IN_SECONDS) : undefined;
  }
  return undefined;
}

/** The response header saying the wait was honoured, or nothing when none was asked for. */
export function preferenceApplied(waitInSeconds: number | undefined): Record<string, string> {
  return waitInSeconds === undefined ? {} : { 'preference-applied': `wait=${waitInSeconds}` };
}
