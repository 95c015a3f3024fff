/** @module zod issues to our ValidationIssue list (JSON paths like `states.a.transitions[0].id`). */
import type { z } from 'zod';
import { ValidationError, type ValidationIssue } from './errors';

export function formatPath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else {
      const name = String(key);
      out += /^[A-Za-z_$][\w$-]*$/.test(name) ? (out ? `.${name}` : name) : `[${JSON.stringify(name)}]`;
    }
  }
  return out || '$';
}

export function issuesFromZod(error: z.ZodError, prefix: ReadonlyArray<PropertyKey> = []): ValidationIssue[] {
  return error.issues.map((issue) => ({ path: formatPath([...prefix, ...issue.path]), message: issue.message }));
}

/** Parses or throws a ValidationError naming every problem. */
export function parseWith<T extends z.ZodType>(schema: T, input: unknown, message: string): z.infer<T> {
  const result = schema.safeParse(input);
  if (!result.success) throw new ValidationError(message, issuesFromZod(result.error));
  return result.data;
}
