/**
 * @module The tenants admin API (Signalbox.TenantAdmin, a role no other role grants): create a tenant
 * (its storage provisioned before it answers), list and read tenants, delete one (offboarding: its tables
 * and container removed, then checked gone). These are the deployment's routes, not a tenant's: they are
 * not served below /api/tenants/{tenantId}/.
 */
import { z } from 'zod';
import { problem } from '../../problem';
import { DEFAULT_TENANT_ID, tenantIdSchema, tenantInputSchema, tenantStorageAccountSchema, type TenantAdministration, type TenantRecord } from '../../tenants';
import { Role } from '../access';
import { defineRoute } from '../route';
import type { ApiResponse, ApiServices, RouteDefinition } from '../types';

const timestamp = z.iso.datetime({ offset: true });

export const tenantSchema = z
  .object({
    id: tenantIdSchema,
    createdAt: timestamp,
    storage: tenantStorageAccountSchema.optional().meta({ description: "The tenant's own storage account; absent: the deployment's account, under names of the tenant's own." }),
    quotas: z.record(z.string(), z.number()).optional().meta({ description: "Limits that differ from the deployment's defaults." }),
    deletion: z
      .object({
        status: z.enum(['running', 'completed', 'failed']),
        requestedAt: timestamp,
        finishedAt: timestamp.optional(),
        check: z.array(z.object({ resource: z.string(), exists: z.boolean() })).optional(),
        failure: z.string().optional(),
      })
      .optional()
      .meta({ description: 'Present from DELETE on; the tenant serves no request from then.' }),
  })
  .meta({ id: 'Tenant' });

export const tenantListSchema = z.object({ items: z.array(tenantSchema) }).meta({ id: 'TenantList' });

export const tenantDeletionSchema = z
  .object({
    id: z.string().meta({ description: '`tenant-deletion:<tenantId>`.' }),
    kind: z.literal('tenantDeletion'),
    tenantId: tenantIdSchema,
    status: z.enum(['running', 'failed']),
    requestedAt: timestamp,
  })
  .meta({ id: 'TenantDeletion', description: 'Poll GET /api/tenants/{tenantId} (the Location): 404 once every table, container, row, blob and lease is gone and checked.' });

const tenantPath = z.object({ tenantId: tenantIdSchema });

function administration(services: ApiServices): TenantAdministration {
  if (!services.tenants) throw new Error('this host has no tenant registry');
  return services.tenants;
}

function tenantNotFound(tenantId: string): ApiResponse {
  return problem(404, 'Not found', `No tenant ${tenantId}`);
}

/** The record as the API shows it (the record's own shape; the schema documents it). */
function representation(record: TenantRecord): TenantRecord {
  return record;
}

export const tenantRoutes: readonly RouteDefinition[] = [
  defineRoute({
    name: 'listTenants',
    methods: ['GET'],
    route: 'tenants',
    authLevel: 'function',
    role: Role.tenantAdmin,
    scope: 'deployment',
    contract: {
      summary: 'List tenants',
      description: 'Every tenant, `default` first; tenants being deleted are listed with their `deletion`.',
      tags: ['tenants'],
      responses: { 200: { description: 'The tenants.', body: tenantListSchema } },
    },
    async handle(_input, services) {
      return { status: 200, headers: { 'cache-control': 'no-store' }, body: { items: (await administration(services).list()).map(representation) } };
    },
  }),
  defineRoute({
    name: 'getTenant',
    methods: ['GET'],
    route: 'tenants/{tenantId}',
    authLevel: 'function',
    role: Role.tenantAdmin,
    scope: 'deployment',
    contract: {
      summary: 'Read a tenant',
      tags: ['tenants'],
      path: tenantPath,
      responses: { 200: { description: 'The tenant.', body: tenantSchema }, 404: 'No such tenant (or its deletion has finished).' },
    },
    async handle({ params }, services) {
      const record = await administration(services).get(params.tenantId);
      return record ? { status: 200, headers: { 'cache-control': 'no-store' }, body: representation(record) } : tenantNotFound(params.tenantId);
    },
  }),
  defineRoute({
    name: 'putTenant',
    methods: ['PUT'],
    route: 'tenants/{tenantId}',
    authLevel: 'function',
    role: Role.tenantAdmin,
    scope: 'deployment',
    contract: {
      summary: 'Create a tenant',
      description:
        "Provisions the tenant's tables and lease container, then registers it; answers when it is ready to use (`/api/tenants/{tenantId}/...`). Idempotent: 200 with the existing tenant (unchanged) when it exists.",
      tags: ['tenants'],
      path: tenantPath,
      body: tenantInputSchema,
      responses: {
        200: { description: 'The tenant existed.', body: tenantSchema },
        201: { description: 'Created and ready.', body: tenantSchema },
        409: 'The tenant is being deleted.',
      },
    },
    async handle({ params, body }, services) {
      const { record, created } = await administration(services).create(params.tenantId, body);
      const headers: Record<string, string> = created ? { location: `/api/tenants/${record.id}` } : {};
      return { status: created ? 201 : 200, headers, body: representation(record) };
    },
  }),
  defineRoute({
    name: 'deleteTenant',
    methods: ['DELETE'],
    route: 'tenants/{tenantId}',
    authLevel: 'function',
    role: Role.tenantAdmin,
    scope: 'deployment',
    contract: {
      summary: 'Delete a tenant',
      description:
        'Offboarding: the tenant stops serving at once; its tables (every row) and lease container (every blob and lease) are removed, then a check proves each is gone, and the record goes last. Runs in the background: poll the Location.',
      tags: ['tenants'],
      path: tenantPath,
      responses: { 202: { description: 'The deletion is running.', body: tenantDeletionSchema }, 400: 'The default tenant cannot be deleted.', 404: 'No such tenant.' },
    },
    async handle({ params }, services) {
      if (params.tenantId === DEFAULT_TENANT_ID) {
        return problem(400, 'Invalid request', 'The default tenant cannot be deleted', [{ path: 'tenantId', message: 'the default tenant cannot be deleted' }]);
      }
      const tenants = administration(services);
      if (!(await tenants.get(params.tenantId))) return tenantNotFound(params.tenantId);
      const record = await tenants.delete(params.tenantId);
      const deletion = record.deletion!;
      return {
        status: 202,
        headers: { location: `/api/tenants/${record.id}` },
        body: { id: `tenant-deletion:${record.id}`, kind: 'tenantDeletion', tenantId: record.id, status: deletion.status === 'failed' ? 'failed' : 'running', requestedAt: deletion.requestedAt },
      };
    },
  }),
];
