/** @module /api/triggers and /api/operations: the long-running operation pattern. */
import { OperationStatus } from '../../engine/enums';
import { NotFoundError } from '../../engine/errors';
import type { StoredOperation } from '../../engine/operation';
import { parseTrigger } from '../../engine/trigger';
import { readJsonBody } from './request-body';
import { parseQuery } from './query';
import { operationBody, operationUrl } from './representations';
import type { ApiResponse, RouteDefinition } from './types';

/** Seconds a client should wait before polling an unfinished operation. */
export const RETRY_AFTER_IN_SECONDS = 1;

export function acceptedOperation(operation: StoredOperation): ApiResponse {
  const statusUrl = operationUrl(operation.id);
  return {
    status: 202,
    headers: { location: statusUrl, 'operation-location': statusUrl, 'retry-after': String(RETRY_AFTER_IN_SECONDS) },
    body: { operationId: operation.id, status: operation.status, statusUrl },
  };
}

function isFinished(operation: StoredOperation): boolean {
  return operation.status === OperationStatus.succeeded || operation.status === OperationStatus.failed;
}

export const triggerRoutes: readonly RouteDefinition[] = [
  {
    name: 'sendTrigger',
    methods: ['POST'],
    route: 'triggers',
    authLevel: 'function',
    async handle(request, services) {
      const trigger = parseTrigger(readJsonBody(request), services.newId);
      return acceptedOperation(await services.triggers.submit(trigger));
    },
  },
  {
    name: 'getOperation',
    methods: ['GET'],
    route: 'operations/{operationId}',
    authLevel: 'function',
    async handle(request, { operations }) {
      parseQuery(request, {});
      const operationId = request.params.operationId!;
      const operation = await operations.get(operationId);
      if (!operation) throw new NotFoundError(`Operation "${operationId}" does not exist`);
      if (isFinished(operation)) return { status: 200, body: operationBody(operation) };
      return { status: 202, headers: { 'retry-after': String(RETRY_AFTER_IN_SECONDS) }, body: operationBody(operation) };
    },
  },
];
