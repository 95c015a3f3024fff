/**
 * @module Opaque continuation tokens: base64url JSON, safe in URLs and query strings. The table SDK's
 * own token (its two `x-ms-continuation-*` headers folded into base64 JSON) is wrapped inside ours, so
 * a caller never sees, and cannot depend on, the storage layout.
 */
import { ValidationError } from '../engine/model';

export function encodeToken(value: Record<string, unknown>): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
}

/** Decodes a token made by encodeToken; anything else is the caller's mistake (ValidationError). */
export function decodeToken<T>(token: string, isValid: (value: unknown) => value is T): T {
  let value: unknown;
  try {
    value = /^[A-Za-z0-9_-]+$/.test(token) ? JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) : undefined;
  } catch {
    value = undefined;
  }
  if (!isValid(value)) {
    throw new ValidationError('The continuation token is invalid', [{ path: 'continuationToken', message: 'is not a token returned by this list' }]);
  }
  return value;
}

/** A token holding just the table SDK's token. */
export interface TableToken {
  readonly t: string;
}

export function isTableToken(value: unknown): value is TableToken {
  return typeof value === 'object' && value !== null && isSdkTableToken((value as { t?: unknown }).t);
}

/** The SDK parses its token without checking it: check its shape here so a bad one is a ValidationError. */
export function isSdkTableToken(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  try {
    const parsed: unknown = JSON.parse(Buffer.from(value, 'base64').toString('latin1'));
    return typeof parsed === 'object' && parsed !== null && typeof (parsed as { nextPartitionKey?: unknown }).nextPartitionKey === 'string';
  } catch {
    return false;
  }
}

export function wrapTableToken(tableToken: string | undefined): string | undefined {
  return tableToken ? encodeToken({ t: tableToken }) : undefined;
}

export function unwrapTableToken(token: string | undefined): string | undefined {
  return token === undefined ? undefined : decodeToken(token, isTableToken).t;
}

/** @default 100, capped at 1000 (a table query page returns at most 1000 entities). */
export function pageSize(maxPageSize: number | undefined): number {
  if (maxPageSize === undefined) return 100;
  if (!Number.isInteger(maxPageSize) || maxPageSize < 1) {
    throw new ValidationError('maxPageSize must be a positive integer', [{ path: 'maxPageSize', message: 'must be a positive integer' }]);
  }
  return Math.min(maxPageSize, 1000);
}
