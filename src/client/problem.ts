/**
 * @module Problem mapping for every caller of the typed client: an error answer becomes the RFC 9457
 * problem the server sent (its status filled in when the body left it out), or one made from whatever
 * the answer held; a request that never got an answer becomes a problem with status 0.
 */
import type { components } from './api-types';

type Problem = components['schemas']['Problem'];

/**
 * A problem as a client holds it: the server's problem+json, or one made here for an answer that was not
 * one (no `type`) or for a request that got no answer (status 0).
 */
export type ClientProblem = Pick<Problem, 'title' | 'status'> & Partial<Pick<Problem, 'type' | 'detail' | 'errors'>>;

/** The most of a non-problem answer's text kept as the detail of the problem made from it. */
const MAX_DETAIL_CHARACTERS = 500;

/** The problem+json an error answer carried (`body` as openapi-fetch parsed it), or undefined when it carried none. */
export function problemInAnswer(body: unknown, response: Response): ClientProblem | undefined {
  if (typeof body !== 'object' || body === null || typeof (body as { title?: unknown }).title !== 'string') return undefined;
  const problem = body as Partial<Problem> & { title: string };
  return { ...problem, status: typeof problem.status === 'number' ? problem.status : response.status };
}

/** The problem of an error answer: the one it carried, or one made from its status and text. */
export function problemFromAnswer(body: unknown, response: Response): ClientProblem {
  const carried = problemInAnswer(body, response);
  if (carried) return carried;
  const text = typeof body === 'string' ? body : body === undefined ? '' : JSON.stringify(body);
  const detail = text.slice(0, MAX_DETAIL_CHARACTERS);
  return { title: response.statusText || 'Request failed', status: response.status, ...(detail ? { detail } : {}) };
}

/** A request that got no answer (refused connection, timeout, CORS) as a problem with status 0. */
export function problemWithoutAnswer(error: unknown): ClientProblem {
  return { title: 'The request did not complete', status: 0, detail: error instanceof Error ? error.message : String(error) };
}
