/**
 * @module How large an instance may be. A store measures the instance's record as UTF-8 JSON (its context
 * and everything else it keeps) and refuses one over its limit with TooLargeError, which faults the change
 * (or refuses the creation) as any oversize value does. Table Storage keeps a record that fits an entity
 * inline and a larger one in a blob (docs/decisions/0020-large-contexts.md); the in-memory store enforces
 * the same limit, so engine tests see what a deployment does.
 */
import { TooLargeError } from './errors';

/** The default limit of one instance's record: 16 MiB of UTF-8 JSON (SIGNALBOX_MAX_INSTANCE_MB overrides it). */
export const DEFAULT_MAX_INSTANCE_BYTES = 16 * 1024 * 1024;

/** A limit in bytes as the figure people read: `16 MiB`, `1.5 MiB`. */
export function mebibytesText(bytes: number): string {
  return `${Number((bytes / (1024 * 1024)).toFixed(2))} MiB`;
}

/** The TooLargeError for an instance record of `bytes` over `limit`, both stores' wording. */
export function instanceTooLargeError(instanceId: string, bytes: number, limit: number): TooLargeError {
  return new TooLargeError(
    `Instance "${instanceId}" is ${bytes} bytes as JSON, larger than ${mebibytesText(limit)}, the most an instance may hold (SIGNALBOX_MAX_INSTANCE_MB); ` +
      'keep large data outside the instance context and store a reference instead',
  );
}
