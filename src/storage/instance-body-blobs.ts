/**
 * @module The blobs that hold instance records too large for a Table entity (the claim check of
 * docs/decisions/0020-large-contexts.md). One blob per saved version, never overwritten:
 * `<encoded instance id>/<encoded createdAt>/<random uuid>`, written with `If-None-Match: *` before the
 * table transaction that references it (name and ETag on the instance entity). The createdAt segment tells
 * incarnations of one id apart, so purging one never touches the blobs of the next. A blob no committed
 * entity references is an orphan (a failed save's, or a previous version whose delete did not happen); the
 * instance store's sweep collects those (TableInstanceStore.collectOrphans).
 */
import { randomUUID } from 'node:crypto';
import { text } from 'node:stream/consumers';
import type { ContainerClient } from '@azure/storage-blob';
import type { OperationOptions } from '../engine/ports';
import { StorageError } from '../engine/model';
import { isEntityNotFound, statusOf, toSignalboxError } from './errors';
import { decodeKey, encodeKey } from './keys';

/** What an instance entity keeps of its body blob. */
export interface BodyBlobReference {
  readonly name: string;
  readonly etag: string;
}

/** A blob of the container, as the sweep sees it. */
export interface ListedBodyBlob {
  readonly name: string;
  /** The instance id its name starts with (undefined: not a name this module wrote). */
  readonly instanceId: string | undefined;
  readonly lastModified: Date;
}

/**
 * A path segment from an id: the key encoding (reversible, blob-safe ASCII), with a segment of dots only
 * escaped, since `.` and `..` segments are normalised away in URLs.
 */
function segment(value: string, what: string): string {
  const key = encodeKey(value, what);
  return /^\.+$/.test(key) ? key.replace(/\./g, '~2E') : key;
}

/** The prefix of every blob of one incarnation of an instance (`<id>/<createdAt>/`). */
export function incarnationPrefix(instanceId: string, createdAt: string): string {
  return `${segment(instanceId, 'instance id')}/${segment(createdAt, 'createdAt')}/`;
}

/** The prefix of a blob name (everything up to its last `/`, inclusive). */
export function prefixOfBlob(name: string): string {
  return name.slice(0, name.lastIndexOf('/') + 1);
}

function instanceIdOf(name: string): string | undefined {
  const first = name.split('/')[0];
  if (!first) return undefined;
  try {
    return decodeKey(first);
  } catch {
    return undefined;
  }
}

export class InstanceBodyBlobs {
  constructor(readonly container: ContainerClient) {}

  /** Writes a new blob (never an existing one) holding `json`; one Put Blob. */
  async write(instanceId: string, createdAt: string, json: string, options: OperationOptions = {}): Promise<BodyBlobReference> {
    const name = `${incarnationPrefix(instanceId, createdAt)}${randomUUID()}`;
    const data = Buffer.from(json, 'utf8');
    try {
      const response = await this.container.getBlockBlobClient(name).upload(data, data.length, {
        conditions: { ifNoneMatch: '*' },
        blobHTTPHeaders: { blobContentType: 'application/json; charset=utf-8' },
        abortSignal: options.abortSignal,
      });
      if (!response.etag) throw new StorageError(`Writing the body of instance "${instanceId}" returned no ETag`, undefined, false);
      return { name, etag: response.etag };
    } catch (error) {
      throw toSignalboxError(error, `body blob of instance "${instanceId}"`);
    }
  }

  /**
   * The blob's text if it is still there with that ETag (one Get Blob); undefined when it is gone. A gone
   * blob answers 404, or 412 to the If-Match (Azurite checks the condition first): names are never reused,
   * so either way the row that referenced it has moved on.
   */
  async read(reference: BodyBlobReference, what: string, options: OperationOptions = {}): Promise<string | undefined> {
    try {
      const response = await this.container.getBlockBlobClient(reference.name).download(0, undefined, { conditions: { ifMatch: reference.etag }, abortSignal: options.abortSignal });
      if (!response.readableStreamBody) throw new StorageError(`The body blob of ${what} came back without a body`, undefined, true);
      return await text(response.readableStreamBody);
    } catch (error) {
      if (isEntityNotFound(error) || statusOf(error) === 412) return undefined;
      throw toSignalboxError(error, `body blob of ${what}`);
    }
  }

  /** Deletes one blob; absent is fine. */
  async delete(name: string, options: OperationOptions = {}): Promise<void> {
    try {
      await this.container.getBlockBlobClient(name).delete({ abortSignal: options.abortSignal });
    } catch (error) {
      if (!isEntityNotFound(error)) throw toSignalboxError(error, `body blob "${name}"`);
    }
  }

  /** Deletes every blob under `prefix` (one incarnation of an instance); returns how many. */
  async deleteUnder(prefix: string, options: OperationOptions = {}): Promise<number> {
    const names: string[] = [];
    for await (const blob of this.list(prefix, options)) names.push(blob.name);
    for (const name of names) await this.delete(name, options);
    return names.length;
  }

  /** Every blob (under `prefix`), in name order. */
  async *list(prefix?: string, options: OperationOptions = {}): AsyncIterable<ListedBodyBlob> {
    try {
      for await (const blob of this.container.listBlobsFlat({ ...(prefix ? { prefix } : {}), abortSignal: options.abortSignal })) {
        yield { name: blob.name, instanceId: instanceIdOf(blob.name), lastModified: blob.properties.lastModified };
      }
    } catch (error) {
      throw toSignalboxError(error, `body blobs${prefix ? ` under "${prefix}"` : ''}`);
    }
  }
}
