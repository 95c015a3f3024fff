/**
 * @module What can end a command, each with its own exit code, so scripts and CI can tell a typo from a
 * broken definition, a refusal by the server and a server that cannot be reached.
 */
import type { ClientProblem } from '../client';

export const ExitCode = {
  ok: 0,
  /** A definition is invalid (or, with `--strict`, has warnings). */
  validation: 1,
  /** The command line itself is wrong: unknown option, missing argument, unreadable file, bad JSON value. */
  usage: 2,
  /** The server answered with an error (problem+json), or an operation it ran failed. */
  api: 3,
  /** The server could not be reached, or did not answer in time. */
  network: 4,
  /** The request was taken, but instances faulted: an operation's (`send --wait`, `watch`), or a started one. */
  faulted: 5,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** An RFC 9457 problem as the API sends it (shared/design/api.md), mapped by the client (src/client/problem.ts). */
export type Problem = ClientProblem;

export class CliError extends Error {
  readonly exitCode: ExitCode;
  constructor(exitCode: ExitCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.exitCode = exitCode;
  }
}

export class UsageError extends CliError {
  constructor(message: string) {
    super(ExitCode.usage, message);
  }
}

/** Definitions that failed validation; the command has already printed every problem. */
export class ValidationFailedError extends CliError {
  constructor(message: string) {
    super(ExitCode.validation, message);
  }
}

/** The server answered with an error status; `problem` is its problem+json body when it sent one. */
export class ApiError extends CliError {
  readonly status: number;
  readonly problem: Problem | undefined;
  constructor(status: number, problem: Problem | undefined, fallbackText = '') {
    super(ExitCode.api, problem?.title ?? `HTTP ${status}${fallbackText ? `: ${fallbackText.slice(0, 200)}` : ''}`);
    this.status = status;
    this.problem = problem;
  }
}

/** An operation the server ran ended `failed` (its dispatch could not finish). */
export class OperationFailedError extends CliError {
  constructor(message: string) {
    super(ExitCode.api, message);
  }
}

export class NetworkError extends CliError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(ExitCode.network, message, options);
  }
}

/** Instances faulted: the operation or the instance has been shown; this says which and why. */
export class InstancesFaultedError extends CliError {
  constructor(message: string) {
    super(ExitCode.faulted, message);
  }
}
