/**
 * @module Invalid fields named beside the field: a problem+json's `errors` are split by the form's field
 * names (an error at `context.amount` belongs to `context`), each shown under its input and tied to it
 * with aria-describedby and aria-invalid; what belongs to no field stays in the form's alert.
 */
import type { ClientProblem } from '../../../src/client';

export type FieldErrors = Partial<Record<string, string>>;

/** The problem's errors per field, and the problem without them (undefined when nothing is left to say). */
export function splitProblem(problem: ClientProblem | undefined, fields: readonly string[]): { byField: FieldErrors; rest: ClientProblem | undefined } {
  if (!problem) return { byField: {}, rest: undefined };
  const byField: FieldErrors = {};
  const rest: NonNullable<ClientProblem['errors']> = [];
  for (const error of problem.errors ?? []) {
    const field = fields.find((name) => error.path === name || error.path.startsWith(`${name}.`) || error.path.startsWith(`${name}[`));
    if (field) byField[field] = byField[field] ? `${byField[field]}; ${error.message}` : error.message;
    else rest.push(error);
  }
  return { byField, rest: { ...problem, errors: rest } };
}

/** The attributes that tie an input to its error. */
export function invalidProps(id: string, error: string | undefined): { 'aria-invalid'?: 'true'; 'aria-describedby'?: string } {
  return error ? { 'aria-invalid': 'true', 'aria-describedby': `${id}-error` } : {};
}

export function FieldError({ id, error }: { id: string; error: string | undefined }) {
  return error ? (
    <p class="field-error" id={`${id}-error`}>
      {error}
    </p>
  ) : null;
}
