/**
 * @module Routes that explain workflows without changing anything: definition analysis (validate),
 * Mermaid diagrams, and the triggers an instance can act on now. The engine's pure analysis decides;
 * these routes only load what it needs.
 */
import { z } from 'zod';
import { availableTriggers, buildDefinitionGraph, checkDefinition, mermaidStateDiagram } from '../../engine/analysis';
import { ValidationError } from '../../engine/errors';
import { readJsonBody } from './request-body';
import { parseQuery } from './query';
import type { RouteDefinition } from './types';

export const explainRoutes: readonly RouteDefinition[] = [
  {
    name: 'validateWorkflow',
    methods: ['POST'],
    route: 'workflows/validate',
    authLevel: 'function',
    async handle(request, { engine }) {
      parseQuery(request, {});
      // An invalid definition is an answer here, not a failed request: 200 with its errors.
      return { status: 200, body: checkDefinition(readJsonBody(request), engine.options.registry) };
    },
  },
  {
    name: 'getWorkflowDiagram',
    methods: ['GET'],
    route: 'workflows/{workflowId}/diagram',
    authLevel: 'function',
    async handle(request, { engine }) {
      const { version, instanceId } = parseQuery(request, {
        version: z.coerce.number().int().min(1).optional(),
        instanceId: z.string().min(1).max(128).optional(),
      });
      const workflowId = request.params.workflowId!;
      const instance = instanceId === undefined ? undefined : await engine.getInstance(instanceId);
      if (instance && instance.workflowId !== workflowId) {
        throw new ValidationError('The query string is invalid', [{ path: 'instanceId', message: `instance "${instance.id}" belongs to workflow "${instance.workflowId}", not "${workflowId}"` }]);
      }
      // An instance is drawn on the version it is pinned to unless another version is asked for.
      const workflow = await engine.getWorkflow(workflowId, version ?? instance?.workflowVersion);
      const text = mermaidStateDiagram(buildDefinitionGraph(workflow.definition), { highlightStateId: instance?.stateId });
      return { status: 200, headers: { 'content-type': 'text/plain; charset=utf-8' }, text };
    },
  },
  {
    name: 'getAvailableTriggers',
    methods: ['GET'],
    route: 'instances/{instanceId}/available-triggers',
    authLevel: 'function',
    async handle(request, { engine }) {
      parseQuery(request, {});
      const instance = await engine.getInstance(request.params.instanceId!);
      const { definition } = await engine.getWorkflow(instance.workflowId, instance.workflowVersion);
      return { status: 200, body: availableTriggers(definition, instance) };
    },
  },
];
