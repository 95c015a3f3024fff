/** @module /api/triggers and /api/operations: the long-running operation pattern. */
import { OperationStatus } from '../../engine/enums';
import { NotFoundError } from '../../engine/errors';
import type { StoredOperation } from '../../engine/operation';
import { triggerFieldsSchema, parseTrigger } from '../../engine/trigger';
import { z } from 'zod';
import { acceptedHeaders, acceptedOperationSchema, operationSchema, retryAfterHeaders } from './api-schemas';
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
    contract: {
      summary: 'Send a trigger',
      description: 'Offered to every instance interested in one of its subjects. A trigger `id` seen before answers with the first operation and changes nothing. At most 100 subjects and 64 KiB.',
      tags: ['triggers'],
      body: triggerFieldsSchema,
      responses: { 202: { description: 'Accepted: poll `statusUrl` until it answers 200.', body: acceptedOperationSchema, headers: acceptedHeaders } },
    },
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
    contract: {
      summary: 'Poll an operation',
      tags: ['triggers'],
      path: z.object({ operationId: z.string() }),
      responses: {
        200: { description: 'Finished: `succeeded` (offered to every candidate) or `failed`.', body: operationSchema },
        202: { description: 'Still `notStarted` or `running`: ask again after Retry-After.', body: operationSchema, headers: retryAfterHeaders },
        404: 'No such operation.',
      },
    },
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
