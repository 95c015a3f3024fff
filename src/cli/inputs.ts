/** @module Values from the command line: JSON or `@file` arguments, `k=v` parameters, definition files. */
import { readFileSync } from 'node:fs';
import type { JsonObject, JsonValue } from '../engine/model';
import { UsageError } from './errors';
import { describeJsonSyntaxError } from './json-syntax';

/** Reads a file as UTF-8 text; a missing or unreadable file is a usage error. */
export function readTextFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as { code?: string }).code;
    throw new UsageError(`cannot read ${path}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : (error as Error).message}`);
  }
}

/** A JSON object given inline (`'{"a":1}'`) or as `@file.json`; `what` names the option in errors. */
export function jsonObjectArgument(value: string, what: string): JsonObject {
  const text = value.startsWith('@') ? readTextFile(value.slice(1)) : value;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Never JSON.parse's message: it quotes the text, which may be a file of secrets given by mistake.
    throw new UsageError(`${what} is not valid JSON (at ${describeJsonSyntaxError(text)})`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new UsageError(`${what} must be a JSON object`);
  return parsed as JsonObject;
}

/**
 * `name=value`: the value is JSON when it parses as JSON (`amount=120`, `ok=true`, `tags=["a"]`), a string
 * otherwise (`by=ann`); quote it to force a string: `code='"007"'`.
 */
export function parseParameter(argument: string): [string, JsonValue] {
  const separator = argument.indexOf('=');
  if (separator <= 0) throw new UsageError(`--param "${argument}" is not name=value`);
  const name = argument.slice(0, separator);
  const raw = argument.slice(separator + 1);
  try {
    return [name, JSON.parse(raw) as JsonValue];
  } catch {
    return [name, raw];
  }
}

/** A commander collector: each use of a repeatable option adds one value. */
export function collect(value: string, previous: readonly string[] = []): string[] {
  return [...previous, value];
}

/** A commander parser for whole numbers (`--version 2`, `--results 20`). */
export function wholeNumber(name: string): (value: string) => number {
  return (value) => {
    const number = Number(value);
    if (!Number.isInteger(number) || number < 0) throw new UsageError(`${name} must be a whole number, not "${value}"`);
    return number;
  };
}

/** A commander parser for a number above zero (`--timeout 2.5`). */
export function positiveNumber(name: string): (value: string) => number {
  return (value) => {
    const number = Number(value);
    if (!Number.isFinite(number) || number <= 0) throw new UsageError(`${name} must be a number above 0, not "${value}"`);
    return number;
  };
}

export type DefinitionFile =
  { readonly file: string; readonly definition: unknown; readonly parseError?: undefined } | { readonly file: string; readonly definition?: undefined; readonly parseError: string };

/** A definition file read and parsed; text that is not JSON is reported as the file's problem, not thrown. */
export function readDefinitionFile(file: string): DefinitionFile {
  const text = readTextFile(file);
  try {
    return { file, definition: JSON.parse(text) as unknown };
  } catch {
    return { file, parseError: `not valid JSON (at ${describeJsonSyntaxError(text)})` };
  }
}
