/**
 * servicesForTenant (src/host/http/tenant-scope.ts) decides which tenant's services a request gets. A
 * request whose credential named no tenants fails closed: the default tenant only.
 */
import { servicesForTenant } from '../../src/host/http/tenant-scope';
import type { ApiServices } from '../../src/host/http/types';

const route = { name: 'listInstances', role: 'Signalbox.Reader' } as never;
const defaultServices = { tenant: 'default' } as unknown as ApiServices;
const acmeServices = { tenant: 'acme' } as unknown as ApiServices;
const resolve = async (tenantId: string) => (tenantId === 'acme' ? acmeServices : undefined);

describe('servicesForTenant', () => {
  it('gives a request without a tenant grant the default tenant only, never every tenant', async () => {
    expect((await servicesForTenant({ route, tenantId: 'default' }, undefined, defaultServices, resolve)).services).toBe(defaultServices);
    const refused = await servicesForTenant({ route, tenantId: 'acme' }, undefined, defaultServices, resolve);
    expect(refused.services).toBeUndefined();
    expect(refused.refusal?.status).toBe(404);
  });

  it('serves a tenant the grant names, and refuses one it does not with the same 404 as a missing tenant', async () => {
    expect((await servicesForTenant({ route, tenantId: 'acme' }, ['acme'], defaultServices, resolve)).services).toBe(acmeServices);
    const foreign = await servicesForTenant({ route, tenantId: 'acme' }, ['default'], defaultServices, resolve);
    const missing = await servicesForTenant({ route, tenantId: 'nobody' }, '*', defaultServices, resolve);
    expect(foreign.refusal).toEqual(missing.refusal);
  });
});
