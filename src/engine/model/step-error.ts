/** @module What a failing step's error is, as `onError.when` names it and the instance records it (definition/error-handling.ts). */

/** What failed, as `onError.when` names it. */
export const StepErrorType = {
  timeout: 'timeout',
  network: 'network',
  http4xx: 'http:4xx',
  http5xx: 'http:5xx',
  allowList: 'allowList',
  expression: 'expression',
  /** The service answered 2xx, but not what the step needs (a malformed body, a condition's non-boolean). */
  response: 'response',
} as const;
export type StepErrorType = (typeof StepErrorType)[keyof typeof StepErrorType];

/** A step error as the instance records it and JSONata sees it. */
export interface StepError {
  readonly type: StepErrorType;
  readonly message: string;
  /** The HTTP status, when the service answered one. */
  readonly status?: number;
  /** The step's JSON path in the definition (`states.a.transitions[0].conditions[1]`). */
  readonly stepPath: string;
}
