/**
 * @module The OpenAPI 3.1 document of the API, built from the route table and the zod schemas so it
 * cannot drift from what the handlers accept.
 */
import { z } from 'zod';
import { workflowDefinitionJsonSchema } from '../../engine/definition-json-schema';
import type { Registry } from '../../engine/registry';
import { triggerInputSchema } from '../../engine/trigger';
import type { RouteDefinition } from './types';

const problemSchema = {
  type: 'object',
  required: ['type', 'title', 'status', 'detail'],
  properties: {
    type: { type: 'string' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    errors: { type: 'array', items: { type: 'object', properties: { path: { type: 'string' }, message: { type: 'string' } } } },
  },
} as const;

/** What every answer that returns an instance holds (representations.ts, instanceBody). */
const instanceSchema = {
  type: 'object',
  required: ['id', 'workflowId', 'workflowVersion', 'stateId', 'status', 'context', 'interests', 'timers', 'createdAt', 'updatedAt', 'etag'],
  properties: {
    id: { type: 'string' },
    workflowId: { type: 'string' },
    workflowVersion: { type: 'integer' },
    stateId: { type: 'string' },
    status: { type: 'string', enum: ['initializing', 'waiting', 'faulted', 'complete', 'cancelled'] },
    context: { type: 'object' },
    interests: { type: 'array', items: { type: 'string' } },
    timers: {
      description: 'Timers armed on entering the current state, not yet fired or spent; leaving the state disarms them.',
      type: 'array',
      items: {
        type: 'object',
        required: ['transitionId', 'dueAt'],
        properties: { transitionId: { type: 'string' }, dueAt: { type: 'string', format: 'date-time' } },
      },
    },
    fault: { type: 'object', properties: { message: { type: 'string' }, triggerId: { type: ['string', 'null'] }, at: { type: 'string', format: 'date-time' } } },
    createdAt: { type: 'string', format: 'date-time' },
    updatedAt: { type: 'string', format: 'date-time' },
    etag: { type: 'string' },
  },
} as const;

/** Success answers whose body is one instance. */
const instanceAnswers: Record<string, string> = { createInstance: '201', getInstance: '200', recoverInstance: '200', cancelInstance: '200' };

const responsesByRoute: Record<string, Record<string, string>> = {
  putWorkflow: { '200': 'A new version', '201': 'Created (version 1)', '400': 'Invalid', '409': 'Exists and no If-Match', '412': 'Stale If-Match' },
  createWorkflow: { '201': 'Created', '400': 'Invalid', '409': 'The id exists' },
  getWorkflow: { '200': 'The latest (or requested) version', '404': 'Not found' },
  listWorkflows: { '200': 'A page of workflows' },
  createInstance: { '201': 'Created', '400': 'Invalid', '404': 'Unknown workflow', '409': 'The id exists' },
  getInstance: { '200': 'The instance', '404': 'Not found' },
  listInstances: { '200': 'A page of instances' },
  getInstanceHistory: { '200': 'Oldest first', '404': 'Not found' },
  sendInstanceTrigger: { '202': 'Accepted: poll the operation', '400': 'Invalid', '404': 'Not found' },
  recoverInstance: { '200': 'Recovered', '404': 'Not found', '409': 'Not faulted' },
  cancelInstance: { '200': 'Cancelled', '404': 'Not found', '409': 'Already complete or cancelled' },
  sendTrigger: { '202': 'Accepted: poll the operation', '400': 'Invalid' },
  getOperation: { '200': 'Finished', '202': 'Still running', '404': 'Not found' },
  health: { '200': 'Storage answers', '503': 'Storage does not answer' },
  openApi: { '200': 'This document' },
};

const requestBodies: Record<string, unknown> = {
  putWorkflow: { $ref: '#/components/schemas/WorkflowDefinition' },
  createWorkflow: { $ref: '#/components/schemas/WorkflowDefinition' },
  sendTrigger: { $ref: '#/components/schemas/Trigger' },
  createInstance: {
    type: 'object',
    required: ['workflowId'],
    properties: { workflowId: { type: 'string' }, instanceId: { type: 'string' }, context: { type: 'object' } },
    additionalProperties: false,
  },
  recoverInstance: { type: 'object', required: ['stateId'], properties: { stateId: { type: 'string' } }, additionalProperties: false },
};

/** A standalone JSON Schema as a component: its `#/$defs/...` references re-rooted under the component. */
function asComponent(name: string, standalone: unknown): unknown {
  const text = JSON.stringify(standalone).replaceAll('"#/$defs/', `"#/components/schemas/${name}/$defs/`);
  const { $schema: _dialect, ...schema } = JSON.parse(text) as Record<string, unknown>;
  return schema;
}

/** The document for these routes; `registry` adds custom condition and action types to the schemas. */
export function buildOpenApiDocument(routes: readonly RouteDefinition[], registry?: Registry): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const path = `/api/${route.route}`;
    const parameters = [...route.route.matchAll(/\{(\w+)\}/g)].map((match) => ({ name: match[1], in: 'path', required: true, schema: { type: 'string' } }));
    for (const method of route.methods) {
      const responses = Object.fromEntries(
        Object.entries(responsesByRoute[route.name] ?? { '200': 'OK' }).map(([status, description]) => [
          status,
          Number(status) >= 400
            ? { description, content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } }
            : instanceAnswers[route.name] === status
              ? { description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Instance' } } } }
              : { description },
        ]),
      );
      const body = requestBodies[route.name];
      (paths[path] ??= {})[method.toLowerCase()] = {
        operationId: route.name,
        ...(parameters.length ? { parameters } : {}),
        ...(body ? { requestBody: { required: true, content: { 'application/json': { schema: body } } } } : {}),
        responses,
        ...(route.authLevel === 'function' ? { security: [{ functionKey: [] }] } : { security: [] }),
      };
    }
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Signalbox', version: '1.0.0', description: 'A state-machine workflow engine: workflows, instances, triggers and operations.' },
    servers: [{ url: '/' }],
    paths,
    components: {
      securitySchemes: { functionKey: { type: 'apiKey', in: 'header', name: 'x-functions-key' } },
      schemas: {
        Problem: problemSchema,
        Instance: instanceSchema,
        WorkflowDefinition: asComponent('WorkflowDefinition', workflowDefinitionJsonSchema(registry)),
        Trigger: asComponent('Trigger', z.toJSONSchema(triggerInputSchema, { io: 'input', unrepresentable: 'any' })),
      },
    },
  };
}
