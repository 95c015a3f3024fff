/** @module Operating a workflow's instances as a whole: migrations between versions (a dry run, or an operation), and deleting a workflow. */
import { z } from 'zod';
import { migrationRequestSchema } from '../../../engine/decide';
import { Role } from '../access';
import { acceptedHeaders, acceptedOperationSchema, migrationReportSchema } from '../api-schemas';
import { acceptedOperation } from '../operations/operation-routes';
import { defineRoute } from '../route';
import { actorOf, type RouteDefinition } from '../types';
const workflowPath = z.object({ workflowId: z.string() });
const noQuery = z.object({});
const accepted = { description: 'Accepted: poll `statusUrl` until it answers 200.', body: acceptedOperationSchema, headers: acceptedHeaders };

export const workflowOperationRoutes: readonly RouteDefinition[] = [
  defineRoute({
    name: 'migrateInstances',
    methods: ['POST'],
    route: 'workflows/{workflowId}/migrations',
    authLevel: 'function',
    role: Role.operator,
    contract: {
      summary: 'Migrate instances to another version of their workflow',
      description: 'A dry run (`dryRun: true`) answers 200 with a report and changes nothing; otherwise 202 with an operation that migrates each instance under its lease.',
      tags: ['operations'],
      path: workflowPath,
      query: noQuery,
      body: migrationRequestSchema,
      responses: {
        200: { description: "The dry run's report: what would move where, and what cannot move and why.", body: migrationReportSchema },
        202: accepted,
        400: 'The request is invalid (a version or a mapped state that does not exist).',
        404: 'No such workflow.',
        429: 'The tenant has as many operations running as its quota allows: nothing was recorded; send it again after `Retry-After` seconds.',
      },
    },
    invalidBody: 'The migration request is invalid',
    async handle({ params, body, request }, { engine, triggers, quotas }) {
      // The body's shape is checked; the engine checks it against the workflow's versions.
      const { request: migration, dryRun } = await engine.migrationsAndBulkActions.parseMigration(params.workflowId, body);
      if (dryRun) return { status: 200, body: await engine.migrationsAndBulkActions.migrationReport(migration) };
      const refused = await quotas?.admitOperation();
      if (refused) return refused;
      return acceptedOperation(await triggers.submitWork({ migration: { ...migration, actor: actorOf(request) } }));
    },
  }),
  defineRoute({
    name: 'deleteWorkflow',
    methods: ['DELETE'],
    route: 'workflows/{workflowId}',
    authLevel: 'function',
    role: Role.admin,
    contract: {
      summary: 'Delete a workflow and every version of it',
      tags: ['workflows'],
      path: workflowPath,
      query: noQuery,
      responses: { 204: { description: 'Deleted.' }, 404: 'No such workflow.', 409: 'Instances of it exist: delete them first.' },
    },
    async handle({ params }, { engine }) {
      await engine.deleteWorkflow(params.workflowId);
      return { status: 204 };
    },
  }),
];
