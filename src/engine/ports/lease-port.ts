/**
 * @module The lease port: per-name mutual exclusion across workers, renewed while the work under it runs
 * (BlobLeaseProvider on Azure Blob leases, InMemoryLeaseProvider in tests). Every change of an instance is
 * made under its lease. Re-exported by ports.ts with the other ports.
 */
import type { StoredInstance } from '../model/instance';
import type { OperationOptions } from './ports';

export interface LeaseOptions extends OperationOptions {
  /** 15 to 60, or -1 for infinite. @default 60 */
  leaseDurationInSeconds?: number;
  /** Total time to wait for a busy lease before LeaseUnavailableError. @default 60000 */
  maxWaitInMs?: number;
}

/** Handed to work done under a lease. */
export interface LeaseHandle {
  readonly name: string;
  /** Aborted when the lease is lost (a renewal failed or it was broken). */
  readonly signal: AbortSignal;
  /** Throws LeaseLostError if the lease has been lost; call it right before a save. */
  assertHeld(): void;
  /**
   * Removes what keeps the lease (its blob), ending it: for a name never used again (a deleted
   * instance). A later `withLease` of the name creates it anew.
   */
  discard(): Promise<void>;
  /**
   * The instance the previous holder in this process saved or read last, when the lease passed to this
   * holder without being released in between (so nobody else wrote under it): the first load may use it
   * instead of a read; a save stays conditional on its ETag. Undefined otherwise, and for providers that
   * do not carry leases over.
   */
  readonly carried?: StoredInstance;
  /** Offers the instance as it now stands (just saved, or read and left unchanged) to the next holder the lease passes to. */
  carry?(instance: StoredInstance): void;
}

/** Per-name mutual exclusion across workers. */
export interface LeaseProvider {
  /**
   * Acquires the lease (waiting with backoff up to `maxWaitInMs`, then LeaseUnavailableError), renews it
   * in the background while `work` runs, and releases it afterwards, whatever happens.
   */
  withLease<T>(name: string, work: (lease: LeaseHandle) => Promise<T>, options?: LeaseOptions): Promise<T>;
  /**
   * Creates what a lease on `name` needs ahead of its first use (a lease blob), so that the first
   * `withLease` costs no more than later ones. Optional, and only an optimisation: `withLease` must
   * work without it. Called when an instance is created.
   */
  prepare?(name: string, options?: OperationOptions): Promise<void>;
  /**
   * Whether the lease is held now, as seen from outside, for explaining why an instance does not move
   * (never for deciding: the answer is stale as soon as it is read). Optional: without it, nothing is said about leases.
   */
  inspect?(name: string, options?: OperationOptions): Promise<LeaseInspection>;
}

/** A lease as `LeaseProvider.inspect` sees it. */
export interface LeaseInspection {
  readonly held: boolean;
  /** An infinite lease never expires on its own: if its holder crashed, only breaking it frees it. Absent when not held. */
  readonly infinite?: boolean;
  /** Set when this process holds it: when it took it (ISO 8601) and until when it holds it without another renewal (absent: infinite). */
  readonly heldHere?: { readonly since: string; readonly expiresAt?: string };
}
