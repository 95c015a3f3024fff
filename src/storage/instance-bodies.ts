/**
 * @module Where an instance row's body goes (docs/decisions/0020-large-contexts.md): inline, split across
 * string properties, while the row fits an entity (1 MiB), so a small instance stays one read; else in a
 * new blob (instance-body-blobs.ts) written before the save's transaction and referenced by the row
 * (`bodyBlob`, `bodyBlobEtag`, `bodyBytes`), so the save stays that one atomic transaction. A record over
 * `maxInstanceBytes` is refused with TooLargeError. What a save leaves behind is deleted once it is
 * certainly no one's: the replaced version's blob after the save, a refused save's own blob once the row
 * is seen not to reference it; anything else waits for the sweep (collectOrphans).
 */
import type { TableClient } from '@azure/data-tables';
import { instanceTooLargeError, StorageError, type Instance, type StoredInstance } from '../engine/model';
import type { OperationOptions } from '../engine/ports';
import { entitySizeInBytes, MAX_ENTITY_BYTES, parseBody, splitBody, stringifyBody, type EntityProperties } from './entity-body';
import { isEntityNotFound, statusOf, toSignalboxError } from './errors';
import { prefixOfBlob, type BodyBlobReference, type InstanceBodyBlobs } from './instance-body-blobs';
import { encodeKey } from './keys';
import type { TableRow } from './table-query';

/** Versions whose body blob a store remembers (by ETag), so a save can delete the one it replaces. */
const REMEMBERED_BLOB_VERSIONS = 1000;

type Row = { partitionKey: string; rowKey: string } & EntityProperties;

/** The instance row as a save writes it, with the blob it wrote first (if any). */
export interface PreparedRow {
  readonly entity: Row;
  readonly written?: BodyBlobReference;
}

export class InstanceBodies {
  /**
   * `<partition key> <ETag>` → the body blob that version of the row references, for the versions this
   * store read or wrote: a save under that ETag then deletes the blob it replaces. A version read elsewhere
   * leaves its blob to the sweep. Oldest first out.
   */
  private readonly blobOfVersion = new Map<string, string>();

  constructor(
    private readonly client: TableClient,
    private readonly instanceRowKey: string,
    readonly maxInstanceBytes: number,
    private readonly blobs?: InstanceBodyBlobs,
  ) {}

  /** The row for `instance` (its query columns in `columns`): the body inline, or in a blob written now. */
  async prepare(instance: Instance, columns: Row, options: OperationOptions): Promise<PreparedRow> {
    const json = stringifyBody(instance);
    const bytes = Buffer.byteLength(json, 'utf8');
    if (bytes > this.maxInstanceBytes) throw instanceTooLargeError(instance.id, bytes, this.maxInstanceBytes);
    const inline: Row = { ...columns, ...splitBody(json) };
    if (!this.blobs || entitySizeInBytes(inline) <= MAX_ENTITY_BYTES) return { entity: inline };
    const written = await this.blobs.write(instance.id, instance.createdAt, json, options);
    return { entity: { ...columns, bodyBlob: written.name, bodyBlobEtag: written.etag, bodyBytes: bytes }, written };
  }

  /** The instance a row holds, its body read from its blob when it has one; undefined when that blob is gone (a save replaced it). */
  async read(row: TableRow, options: OperationOptions): Promise<StoredInstance | undefined> {
    if (!row.etag) throw new StorageError(`Stored instance ${row.partitionKey} has no ETag`, undefined, false);
    const reference = blobReferenceOf(row);
    if (!reference) return { ...parseBody<Instance>(row), etag: row.etag };
    if (!this.blobs) throw new StorageError(`Stored instance ${row.partitionKey} keeps its body in a blob, and this store has no blob container`, undefined, false);
    const json = await this.blobs.read(reference, `instance ${row.partitionKey}`, options);
    if (json === undefined) return undefined;
    this.remember(String(row.partitionKey), row.etag, reference.name);
    return { ...parseBody<Instance>({ partitionKey: row.partitionKey, rowKey: row.rowKey, body: json }), etag: row.etag };
  }

  /** After a save committed as `etag`: the blob of the version it replaced (`ifMatch`) is no one's now. */
  async committed(prepared: PreparedRow, ifMatch: string, etag: string): Promise<void> {
    const partitionKey = prepared.entity.partitionKey;
    const replaced = ifMatch === 'create' ? undefined : this.take(partitionKey, ifMatch);
    if (replaced && replaced !== prepared.written?.name) await this.deleteQuietly(replaced);
    if (prepared.written) this.remember(partitionKey, etag, prepared.written.name);
  }

  /**
   * After a save failed. Refused (a 4xx but a timeout): its blob is no one's unless an earlier attempt of
   * the same request committed and lost its answer (the SDK's retry then meets 412 or 409), so it is
   * deleted only once the row is seen not to reference it. Any other failure may still commit (a
   * timeout), so its blob stays for the sweep, which checks the row after a grace period.
   */
  async failed(instanceId: string, prepared: PreparedRow | undefined, error: unknown): Promise<void> {
    const written = prepared?.written;
    const status = statusOf(error);
    if (!written || status === undefined || status < 400 || status >= 500 || status === 408) return;
    try {
      if ((await this.referencedBlob(instanceId, {})) !== written.name) await this.blobs?.delete(written.name);
    } catch {
      // Unknown: the sweep decides later.
    }
  }

  /** After the purge deleted the instance row that referenced `bodyBlob`: every blob of that incarnation. */
  async purged(bodyBlob: string | undefined, options: OperationOptions): Promise<void> {
    if (bodyBlob && this.blobs) await this.blobs.deleteUnder(prefixOfBlob(bodyBlob), options);
  }

  /**
   * Deletes the body blobs written before `writtenBefore` that no instance row references: those of saves
   * that failed after their blob was written (a crash, a lost race), and previous versions whose delete
   * after the save did not happen. Costs a listing of the container and a point read per instance that has
   * an old blob. The caller leaves a grace period (ORPHAN_GRACE_PERIOD_MS), so a save in flight, whose blob
   * is written and whose row is not yet, keeps its blob. Returns how many it deleted.
   */
  async collectOrphans(options: OperationOptions & { writtenBefore: Date }): Promise<number> {
    if (!this.blobs) return 0;
    const referenced = new Map<string, string | undefined>();
    const old: { name: string; instanceId: string | undefined }[] = [];
    // Collected first: deleting while paging a listing could skip blobs.
    for await (const blob of this.blobs.list(undefined, options)) if (blob.lastModified < options.writtenBefore) old.push(blob);
    let deleted = 0;
    for (const blob of old) {
      if (blob.instanceId !== undefined && !referenced.has(blob.instanceId)) referenced.set(blob.instanceId, await this.referencedBlob(blob.instanceId, options));
      if (blob.instanceId !== undefined && referenced.get(blob.instanceId) === blob.name) continue;
      await this.blobs.delete(blob.name, options);
      deleted += 1;
    }
    return deleted;
  }

  /** The body blob the instance's row references now (undefined: none, or no such row). */
  private async referencedBlob(instanceId: string, options: OperationOptions): Promise<string | undefined> {
    try {
      const row = await this.client.getEntity<Record<string, unknown>>(encodeKey(instanceId, 'instance id'), this.instanceRowKey, {
        abortSignal: options.abortSignal,
        queryOptions: { select: ['bodyBlob'] },
      });
      return typeof row.bodyBlob === 'string' ? row.bodyBlob : undefined;
    } catch (error) {
      if (isEntityNotFound(error)) return undefined;
      throw toSignalboxError(error, `instance "${instanceId}"`);
    }
  }

  private remember(partitionKey: string, etag: string, name: string): void {
    const key = `${partitionKey} ${etag}`;
    this.blobOfVersion.delete(key);
    this.blobOfVersion.set(key, name);
    if (this.blobOfVersion.size > REMEMBERED_BLOB_VERSIONS) this.blobOfVersion.delete(this.blobOfVersion.keys().next().value as string);
  }

  /** The blob the version `etag` referenced (if this store saw it), forgotten: it is being replaced. */
  private take(partitionKey: string, etag: string): string | undefined {
    const key = `${partitionKey} ${etag}`;
    const name = this.blobOfVersion.get(key);
    this.blobOfVersion.delete(key);
    return name;
  }

  private async deleteQuietly(name: string): Promise<void> {
    try {
      await this.blobs?.delete(name);
    } catch {
      // Best effort: an unreferenced blob is collected by the sweep.
    }
  }
}

/** The body blob a row references, if it keeps its body in one. */
function blobReferenceOf(row: Record<string, unknown>): BodyBlobReference | undefined {
  return typeof row.bodyBlob === 'string' && typeof row.bodyBlobEtag === 'string' ? { name: row.bodyBlob, etag: row.bodyBlobEtag } : undefined;
}
