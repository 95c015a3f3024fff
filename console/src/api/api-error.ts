/** @module The one error the console's API calls throw: the problem the client mapped the answer to (src/client/problem.ts). */
import { problemWithoutAnswer, type ClientProblem } from '../../../src/client';

export class ApiError extends Error {
  constructor(readonly problem: ClientProblem) {
    super(problem.detail ?? problem.title);
    this.name = 'ApiError';
  }

  get status(): number {
    return this.problem.status;
  }
}

/** Any thrown value as a problem to show: ApiErrors keep theirs, network failures become status 0. */
export function asProblem(error: unknown): ClientProblem {
  if (error instanceof ApiError) return error.problem;
  return problemWithoutAnswer(error);
}
