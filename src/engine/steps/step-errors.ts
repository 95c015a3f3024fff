/** @module The type of a step's failure (model/step-error.ts), read from the error the step threw. */
import { StepErrorType, type StepError } from '../model/step-error';
import { ExternalServiceError, ExternalServiceTimeoutError, OutboundRefusedError, RetryLaterError } from './outbound-port';

/** The type of a step's failure (its cause, when a StepFailure wraps it). */
export function classifyError(error: unknown): Omit<StepError, 'stepPath'> {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof RetryLaterError) return error.lastError;
  if (error instanceof OutboundRefusedError) return { type: StepErrorType.allowList, message };
  if (error instanceof ExternalServiceTimeoutError) return { type: StepErrorType.timeout, message };
  if (error instanceof ExternalServiceError) {
    const { status } = error;
    if (status === undefined) return { type: error.answered ? StepErrorType.response : StepErrorType.network, message };
    if (status >= 500) return { type: StepErrorType.http5xx, message, status };
    if (status >= 400) return { type: StepErrorType.http4xx, message, status };
    return { type: StepErrorType.response, message, status };
  }
  return { type: StepErrorType.expression, message };
}
