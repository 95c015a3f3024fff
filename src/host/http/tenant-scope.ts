/**
 * @module Which tenant's services a request gets, on both hosts: the tenant the path names (routes.ts),
 * if the credential may use it (access.ts) and it exists. Both refusals are one and the same 404, so a
 * caller cannot tell a tenant it may not use from one that does not exist.
 */
import { problem } from '../problem';
import { DEFAULT_TENANT_ID } from '../tenants';
import { mayUseTenant, publicRoute, type TenantGrant } from './access';
import type { RouteMatch } from './routes';
import type { ApiResponse, ApiServices } from './types';

/** A tenant's API services, undefined when the tenant does not exist (or is being deleted). */
export type TenantServicesResolver = (tenantId: string) => Promise<ApiServices | undefined>;

/** The one answer for a tenant that does not exist and for one the caller may not use. */
export function tenantNotFound(): ApiResponse {
  return problem(404, 'Not found', 'No such tenant');
}

/**
 * The services for `match`'s tenant: the default tenant's for `/api/...` and the deployment's routes,
 * else `resolve`'s. `grant` is what the credential may use (absent: the default tenant only; an open server grants `*`).
 * `defaultServices` may be built on demand (the Functions app builds services per request: only the tenant's own).
 */
export async function servicesForTenant(
  match: Pick<RouteMatch, 'route' | 'tenantId'>,
  grant: TenantGrant | undefined,
  defaultServices: ApiServices | (() => Promise<ApiServices>),
  resolve: TenantServicesResolver | undefined,
): Promise<{ readonly services: ApiServices; readonly refusal?: undefined } | { readonly refusal: ApiResponse; readonly services?: undefined }> {
  // Public routes (health, the OpenAPI document) hold no tenant's data and need no credential: they answer
  // alike below every tenant's path, since answering by whether the tenant exists would tell anyone that it does.
  const defaults = async () => ({ services: typeof defaultServices === 'function' ? await defaultServices() : defaultServices });
  if (match.route.scope === 'deployment' || match.route.role === publicRoute) return defaults();
  const { tenantId } = match;
  // No grant (a caller authentication did not name): the default tenant only, never every tenant.
  if (!mayUseTenant(grant ?? [DEFAULT_TENANT_ID], tenantId)) return { refusal: tenantNotFound() };
  if (tenantId === DEFAULT_TENANT_ID) return defaults();
  const services = resolve ? await resolve(tenantId) : undefined;
  return services ? { services } : { refusal: tenantNotFound() };
}
