/** @module The one error the console's API calls throw: the problem+json the server answered with. */
import type { Problem } from './types';

export class ApiError extends Error {
  constructor(readonly problem: Problem) {
    super(problem.detail ?? problem.title);
    this.name = 'ApiError';
  }

  get status(): number {
    return this.problem.status;
  }
}

/** Any thrown value as a problem to show: ApiErrors keep theirs, network failures become status 0. */
export function asProblem(error: unknown): Problem {
  if (error instanceof ApiError) return error.problem;
  return { title: 'The request did not complete', status: 0, detail: error instanceof Error ? error.message : String(error) };
}
