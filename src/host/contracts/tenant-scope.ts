/**
 * @module The tenant of durable work: every orchestration and activity input carries `tenantId`, so an
 * activity runs against its tenant's storage however far it is from the request that caused it. Pure (the
 * orchestrators import it). Inputs written before tenants carry none: they are the default tenant's.
 */

/** The default tenant's id (src/storage/names.ts says the same; kept here so orchestrators import nothing impure). */
const DEFAULT_TENANT = 'default';

/** What every durable input carries. */
export interface TenantScoped {
  /** The tenant the work belongs to; absent on inputs written before tenants (the default tenant). */
  readonly tenantId?: string;
}

/** The tenant of a durable input (an object with `tenantId`, else the default tenant). */
export function tenantOfInput(input: unknown): string {
  const tenantId = typeof input === 'object' && input !== null ? (input as TenantScoped).tenantId : undefined;
  return typeof tenantId === 'string' ? tenantId : DEFAULT_TENANT;
}

/**
 * The `tenantId` part of a durable input: none for the default tenant (its inputs stay exactly as they
 * were before tenants, as orchestrations in flight expect), the id for any other.
 */
export function tenantScope(tenantId: string): TenantScoped {
  return tenantId === DEFAULT_TENANT ? {} : { tenantId };
}

/**
 * A durable instance id for work of `tenantId`: durable instance ids are unique per task hub, which all
 * tenants share, and two tenants may use the same operation, timer or event ids. The default tenant's
 * ids stay as they were, so orchestrations in flight are still found; another tenant's are prefixed
 * (`|` appears in no tenant id).
 */
export function tenantInstanceId(tenantId: string, instanceId: string): string {
  return tenantId === DEFAULT_TENANT ? instanceId : `${tenantId}|${instanceId}`;
}
