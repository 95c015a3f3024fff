/**
 * @module Lease names to blob names: any string maps to a valid blob name (see encodeBlobName in
 * src/storage/keys.ts: the id alphabet kept, everything else `~XX`-escaped, a trailing dot escaped,
 * names over 1024 characters shortened with a SHA-256).
 */
export { encodeBlobName as leaseBlobName, MAX_BLOB_NAME_LENGTH } from '../storage/keys';
