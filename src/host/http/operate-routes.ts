/**
 * @module Operating a live system: migrations between versions (dry run, or an operation), suspend and
 * resume, bulk actions (an operation), deleting instances and workflows.
 */
import { z } from 'zod';
import { bulkRequestSchema, type BulkRequest } from '../../engine/operation-work';
import { parseWith } from '../../engine/validation';
import { readJsonBody } from './request-body';
import { parseQuery } from './query';
import { instanceBody } from './representations';
import { acceptedOperation } from './trigger-routes';
import type { RouteDefinition } from './types';

const forceQuery = { force: z.enum(['true', 'false']).optional() };

export const operateRoutes: readonly RouteDefinition[] = [
  {
    name: 'migrateInstances',
    methods: ['POST'],
    route: 'workflows/{workflowId}/migrations',
    authLevel: 'function',
    async handle(request, { engine, triggers }) {
      parseQuery(request, {});
      const { request: migration, dryRun } = await engine.operations.parseMigration(request.params.workflowId!, readJsonBody(request));
      if (dryRun) return { status: 200, body: await engine.operations.migrationReport(migration) };
      return acceptedOperation(await triggers.submitWork({ migration }));
    },
  },
  {
    name: 'deleteWorkflow',
    methods: ['DELETE'],
    route: 'workflows/{workflowId}',
    authLevel: 'function',
    async handle(request, { engine }) {
      parseQuery(request, {});
      await engine.deleteWorkflow(request.params.workflowId!);
      return { status: 204 };
    },
  },
  {
    name: 'deleteInstance',
    methods: ['DELETE'],
    route: 'instances/{instanceId}',
    authLevel: 'function',
    async handle(request, { engine }) {
      const { force } = parseQuery(request, forceQuery);
      await engine.deleteInstance(request.params.instanceId!, { force: force === 'true' });
      return { status: 204 };
    },
  },
  {
    name: 'suspendInstance',
    methods: ['POST'],
    route: 'instances/{instanceId}/suspend',
    authLevel: 'function',
    async handle(request, { engine }) {
      parseQuery(request, {});
      readJsonBody(request, { optional: true });
      const instance = await engine.suspend(request.params.instanceId!);
      return { status: 200, headers: { etag: instance.etag }, body: instanceBody(instance) };
    },
  },
  {
    name: 'resumeInstance',
    methods: ['POST'],
    route: 'instances/{instanceId}/resume',
    authLevel: 'function',
    async handle(request, { engine }) {
      parseQuery(request, {});
      readJsonBody(request, { optional: true });
      const instance = await engine.resume(request.params.instanceId!);
      return { status: 200, headers: { etag: instance.etag }, body: instanceBody(instance) };
    },
  },
  {
    name: 'bulkInstances',
    methods: ['POST'],
    route: 'instances/bulk',
    authLevel: 'function',
    async handle(request, { triggers }) {
      parseQuery(request, {});
      const parsed = parseWith(bulkRequestSchema, readJsonBody(request), 'The bulk request is invalid');
      const bulk: BulkRequest = {
        action: parsed.action,
        filter: parsed.filter,
        ...(parsed.stateId !== undefined ? { stateId: parsed.stateId } : {}),
        ...(parsed.force ? { force: true } : {}),
      };
      return acceptedOperation(await triggers.submitWork({ bulk }));
    },
  },
];
