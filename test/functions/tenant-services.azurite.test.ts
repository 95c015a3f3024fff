/**
 * The Functions app's request path and sweeps build a tenant's services once: a request under
 * `/api/tenants/{id}/...` builds that tenant's services and not the default tenant's too, and the recovery
 * and retention sweeps use the core they listed instead of looking each tenant up again (a second lookup
 * reads the registry once the cached record is 30 s old). Run on the registered functions' handlers over
 * the Azurite jest starts, with a real tenant registry and a real tenant.
 */
jest.mock('@azure/functions-core', () => ({ registerFunction: jest.fn(), setProgrammingModel: jest.fn() }), { virtual: true });

/** How many times each tenant's core built API services (a HostCore's servicesFor), by tenant id. */
const mockServicesBuilt = new Map<string, number>();
// Every core the app builds (the default tenant's and each tenant's) counts the services it builds.
jest.mock('../../src/host/host-services', () => {
  const actual = jest.requireActual<typeof import('../../src/host/host-services')>('../../src/host/host-services');
  return {
    ...actual,
    createHostCore: (options: Parameters<typeof actual.createHostCore>[0]) => {
      const core = actual.createHostCore(options);
      const tenantId = options.tenant?.id ?? 'default';
      return {
        ...core,
        servicesFor: (...args: Parameters<typeof core.servicesFor>) => {
          mockServicesBuilt.set(tenantId, (mockServicesBuilt.get(tenantId) ?? 0) + 1);
          return core.servicesFor(...args);
        },
      };
    },
  };
});

import { HttpRequest, type HttpResponseInit, type Timer } from '@azure/functions';
import { setHostCore, tenantAdministration } from '../../functions/app-services';
import { handleTenantRoute } from '../../functions/http';
import { runRecovery } from '../../functions/recovery';
import { createAzurePorts } from '../../src/host/azure-ports';
import { createHostCore } from '../../src/host/host-services';
import { silentLogger } from '../../src/host/local/logger';
import { TenantCores } from '../../src/host/tenant-cores';
import { Role, type AccessPolicy } from '../../src/host/http/access';
import { createTableClient, prefixedStorageNames, TableTenantRegistry, tenantRegistryTable } from '../../src/storage';
import { resolveStorageConnection } from '../../src/host/storage-connection';
import { testConnectionString, uniquePrefix } from '../support/storage';
import { durableInvocationContext } from '../support/invocation-context';

const prefix = uniquePrefix('fntenants');
const adminKey: AccessPolicy = { platformCheckedKey: true, keyRoles: [Role.admin, Role.tenantAdmin], keyTenants: '*' };

const invocationContext = () => durableInvocationContext('inv-tenants');

const savedEnv = { storage: process.env.SIGNALBOX_STORAGE, prefix: process.env.SIGNALBOX_STORAGE_PREFIX };

beforeAll(async () => {
  process.env.SIGNALBOX_STORAGE = testConnectionString();
  process.env.SIGNALBOX_STORAGE_PREFIX = prefix;
  const env = { SIGNALBOX_STORAGE: testConnectionString() };
  const ports = await createAzurePorts({ env, names: prefixedStorageNames(prefix) });
  setHostCore(createHostCore({ ports, logger: silentLogger, env }));
  // The registry's table, as the deployment's start creates it (infra on Azure, the local host's start).
  await new TableTenantRegistry(createTableClient(resolveStorageConnection(env), tenantRegistryTable(prefixedStorageNames(prefix)))).ensureTable();
  await tenantAdministration().create('acme', {});
});

afterAll(() => {
  jest.restoreAllMocks();
  setHostCore(undefined);
  if (savedEnv.storage === undefined) delete process.env.SIGNALBOX_STORAGE;
  else process.env.SIGNALBOX_STORAGE = savedEnv.storage;
  if (savedEnv.prefix === undefined) delete process.env.SIGNALBOX_STORAGE_PREFIX;
  else process.env.SIGNALBOX_STORAGE_PREFIX = savedEnv.prefix;
});

beforeEach(() => mockServicesBuilt.clear());

async function tenantGet(tenantId: string, path: string): Promise<HttpResponseInit> {
  const request = new HttpRequest({ method: 'GET', url: `https://signalbox.example/api/tenants/${tenantId}/${path}`, params: { tenantId, path } });
  return handleTenantRoute(request, invocationContext(), undefined, adminKey);
}

describe("a tenant's services on the Functions app", () => {
  it("builds only the tenant's own services for a request under its path", async () => {
    expect((await tenantGet('acme', 'workflows')).status).toBe(200);
    expect(Object.fromEntries(mockServicesBuilt)).toEqual({ acme: 1 });
  });

  it('answers an unknown tenant 404 without building any services', async () => {
    expect((await tenantGet('nobody', 'workflows')).status).toBe(404);
    expect(Object.fromEntries(mockServicesBuilt)).toEqual({});
  });

  it('sweeps each tenant with the core it listed: one services build each, no second lookup of its core', async () => {
    // A second lookup reads the tenant's registry record again once its core is 30 s old (TenantCores).
    const lookups = jest.spyOn(TenantCores.prototype, 'get');
    await runRecovery({} as Timer, invocationContext());
    expect(lookups).not.toHaveBeenCalled();
    expect(Object.fromEntries(mockServicesBuilt)).toEqual({ default: 1, acme: 1 });
  });
});
