/** @module /api/triggers and /api/operations: the long-running operation pattern, and `Prefer: wait`. */
import { NotFoundError } from '../../../engine/model';
import { MAX_OPERATION_RESULTS, OperationEnding, OperationKind, fitOperation, operationEnding, type InstanceResult, type StoredOperation } from '../../../engine/operations';
import type { OperationStore } from '../../../engine/ports';
import { OperationStatus } from '../../../engine/model';
import { onePage } from '../../../engine/ports';
import { triggerInputSchema, triggerFromInput, type Trigger } from '../../../engine/model';
import { z } from 'zod';
import { isFinished } from '../../finished-operation-cache';
import {
  acceptedHeaders,
  acceptedOperationSchema,
  dryRunQuerySchema,
  dryRunSchema,
  finishedOperationHeaders,
  listedOperationSchema,
  operationSchema,
  pageSchemaOf,
  pendingOperationHeaders,
} from '../api-schemas';
import { preferenceApplied, preferWaitHeaders, requestedWaitInSeconds } from '../prefer-wait';
import { pageQuerySchema } from '../query';
import { defineRoute } from '../route';
import { listedOperationBody, operationBody, operationUrl, pageBody } from '../representations';
import { actorOf, type ApiRequest, type ApiResponse, type ApiServices, type ResponseContract, type RouteDefinition } from '../types';
import { Role } from '../access';

/** Seconds a client should wait before polling an unfinished operation. */
export const RETRY_AFTER_IN_SECONDS = 1;

export function acceptedOperation(operation: StoredOperation, waitInSeconds?: number): ApiResponse {
  const statusUrl = operationUrl(operation.id);
  return {
    status: 202,
    headers: { location: statusUrl, 'operation-location': statusUrl, 'retry-after': String(RETRY_AFTER_IN_SECONDS), ...preferenceApplied(waitInSeconds) },
    body: { operationId: operation.id, status: operation.status, statusUrl },
  };
}

/** The 200 of a finished operation (GET, or a POST that waited for it). */
async function finishedOperation(operations: OperationStore, operation: StoredOperation, waitInSeconds?: number): Promise<ApiResponse> {
  return { status: 200, headers: preferenceApplied(waitInSeconds), body: operationBody(await withResults(operations, operation)) };
}

/**
 * The operation with its first MAX_OPERATION_RESULTS per-instance results, read from its results (the
 * activities store them there, on both hosts; OperationStore.putResult): one query. A record that holds
 * its results itself (an operation of one batch kept them for its completion, decision 0017; a record
 * written before results had rows of their own) lists them first, and needs no query once finished
 * with all of them. Fitted as the record was (fitOperation: traces on the first results only, the whole
 * within MAX_OPERATION_RESULTS_LENGTH).
 */
export async function withResults(operations: OperationStore, operation: StoredOperation): Promise<StoredOperation> {
  if (operation.status === OperationStatus.notStarted || operation.instances.length >= MAX_OPERATION_RESULTS) return operation;
  if (isFinished(operation) && operation.instances.length >= operation.candidates) return operation;
  const page = await onePage(operations.listResults(operation.id, { maxPageSize: MAX_OPERATION_RESULTS }));
  const recorded = new Set(operation.instances.map((result) => result.instanceId));
  // In instance id order (the store's key order may differ for ids beyond the key alphabet; memory's does not).
  const stored = page.items.filter((result) => !recorded.has(result.instanceId)).sort((a, b) => (a.instanceId < b.instanceId ? -1 : a.instanceId > b.instanceId ? 1 : 0));
  const instances: InstanceResult[] = [...operation.instances, ...stored];
  const more = page.continuationToken !== undefined || instances.length > MAX_OPERATION_RESULTS;
  const fitted = fitOperation({ ...operation, instances: instances.slice(0, MAX_OPERATION_RESULTS) });
  // While running, the summary counts fewer than the results stored: fitting alone would not tell.
  return more && !fitted.instancesTruncated ? { ...fitted, instancesTruncated: true } : fitted;
}

/**
 * Submits a trigger from a route and answers as `submittedOperation` does; a client that waits gets a
 * trigger of one candidate run before it is recorded, where the host can (TriggerSubmitter.submitWithin).
 * `idFromClient`: the body named the trigger's id.
 */
export async function submittedTrigger(
  request: ApiRequest,
  services: ApiServices,
  trigger: Trigger,
  how: { readonly to?: { readonly instanceId: string }; readonly idFromClient: boolean },
): Promise<ApiResponse> {
  const waitInSeconds = requestedWaitInSeconds(request);
  if (waitInSeconds === undefined || waitInSeconds <= 0) return submittedOperation(request, services, await services.triggers.submit(trigger, undefined, how.to));
  const { operation, waited } = await services.triggers.submitWithin(trigger, waitInSeconds * 1000, how);
  if (!waited) return submittedOperation(request, services, operation);
  return isFinished(operation) ? finishedOperation(services.operations, operation, waitInSeconds) : acceptedOperation(operation, waitInSeconds);
}

/**
 * The answer to a trigger just submitted: 202 as ever, unless the request prefers to wait (`Prefer:
 * wait`) and the operation finishes within that time: then 200 with the finished operation.
 */
export async function submittedOperation(request: ApiRequest, services: ApiServices, operation: StoredOperation): Promise<ApiResponse> {
  const waitInSeconds = requestedWaitInSeconds(request);
  if (waitInSeconds === undefined) return acceptedOperation(operation);
  const current = (await services.awaitOperation(operation.id, waitInSeconds * 1000, operation)) ?? operation;
  return isFinished(current) ? finishedOperation(services.operations, current, waitInSeconds) : acceptedOperation(current, waitInSeconds);
}

/** What the trigger routes answer (both: the instance-scoped one too). */
export const submittedResponses: Readonly<Record<number, ResponseContract | string>> = {
  200: {
    description:
      'With `?dryRun=true`: the dry run (DryRun), what the trigger would do; nothing was saved. Otherwise only with `Prefer: wait=<seconds>`: the operation finished within the wait, and this is it, as `GET statusUrl` would answer.',
    body: z.union([operationSchema, dryRunSchema]),
    headers: finishedOperationHeaders,
  },
  202: { description: 'Accepted: poll `statusUrl` until it answers 200 (or send `Prefer: wait` with the poll).', body: acceptedOperationSchema, headers: acceptedHeaders },
  409: 'The trigger `id` was sent before with another body; `detail` names the first difference. Nothing was sent.',
  429: "Over the tenant's trigger rate or its operations running at once: nothing was recorded; send it again after `Retry-After` seconds.",
};

const operationPath = z.object({ operationId: z.string() });
const isoTime = (description: string) => z.iso.datetime({ offset: true }).optional().meta({ description });
const listOperationsQuery = z.object({
  kind: z.enum(Object.values(OperationKind) as [OperationKind, ...OperationKind[]]).optional(),
  status: z.enum(Object.values(OperationStatus) as [OperationStatus, ...OperationStatus[]]).optional(),
  workflowId: z.string().min(1).max(128).optional().meta({ description: 'Migrations and bulk actions of this workflow (a trigger is addressed to subjects, not to a workflow).' }),
  createdSince: isoTime('Only operations created at or after this moment (ISO 8601).'),
  createdBefore: isoTime('Only operations created before this moment (ISO 8601).'),
  outcome: z
    .enum(Object.values(OperationEnding) as [OperationEnding, ...OperationEnding[]])
    .optional()
    .meta({ description: 'Only finished operations that ended so (`completedWithFaults`: some instance faulted). Filtered page by page: a page may be short, follow `continuationToken`.' }),
  ...pageQuerySchema,
});

export const triggerRoutes: readonly RouteDefinition[] = [
  defineRoute({
    name: 'sendTrigger',
    methods: ['POST'],
    route: 'triggers',
    authLevel: 'function',
    role: Role.sender,
    contract: {
      summary: 'Send a trigger',
      description:
        'Offered to every instance interested in one of its subjects. A trigger `id` seen before answers with the first operation and changes nothing. At most 100 subjects and 64 KiB. ' +
        'With `Prefer: wait=<seconds>` the answer waits up to that long (at most 60) for the operation to finish. ' +
        'With `?dryRun=true`: 200 with what it would do to each of the first 100 candidates; nothing is saved, leased or dispatched.',
      tags: ['triggers'],
      query: dryRunQuerySchema,
      headers: preferWaitHeaders,
      // The fields as the document shows them, with the size check a trigger needs as a whole.
      body: triggerInputSchema,
      responses: submittedResponses,
    },
    invalidBody: 'The trigger is invalid',
    async handle({ query, body, request }, services) {
      const trigger = { ...triggerFromInput(body, services.newId), actor: actorOf(request) };
      if (query.dryRun === 'true') return { status: 200, body: await services.engine.dryRunPublish(trigger) };
      const refused = await services.quotas?.admitTrigger();
      if (refused) return refused;
      return submittedTrigger(request, services, trigger, { idFromClient: body.id !== undefined });
    },
  }),
  defineRoute({
    name: 'listOperations',
    methods: ['GET'],
    route: 'operations',
    authLevel: 'function',
    role: Role.reader,
    contract: {
      summary: 'Find operations, newest first',
      description: 'Triggers sent, migrations and bulk actions, newest first, each with what it was and how it ended (without its per-instance results: GET the operation).',
      tags: ['operations'],
      query: listOperationsQuery,
      responses: { 200: { description: 'A page of operations, newest first.', body: pageSchemaOf(listedOperationSchema, 'OperationPage') } },
    },
    async handle({ query: { kind, status, workflowId, createdSince, createdBefore, outcome, ...page } }, { operations }) {
      const query = {
        ...(kind ? { kind } : {}),
        ...(status ? { status } : {}),
        ...(workflowId ? { workflowId } : {}),
        ...(createdSince ? { createdSince } : {}),
        ...(createdBefore ? { createdBefore } : {}),
      };
      // An outcome narrows by status in the store (a failure is `failed`, the others `succeeded`), then by the counts.
      const narrowed = outcome === undefined || status !== undefined ? query : { ...query, status: outcome === OperationEnding.failed ? OperationStatus.failed : OperationStatus.succeeded };
      const result = await onePage(operations.list(narrowed, page));
      const items = outcome === undefined ? result.items : result.items.filter((operation) => operationEnding(operation) === outcome);
      return { status: 200, body: pageBody(items.map(listedOperationBody), result) };
    },
  }),
  defineRoute({
    name: 'getOperation',
    methods: ['GET'],
    route: 'operations/{operationId}',
    authLevel: 'function',
    role: Role.reader,
    contract: {
      summary: 'Poll an operation',
      description: 'With `Prefer: wait=<seconds>` an unfinished operation is answered when it finishes, or after that long (at most 60), whichever comes first.',
      tags: ['triggers'],
      path: operationPath,
      headers: preferWaitHeaders,
      responses: {
        200: { description: 'Finished: `succeeded` (offered to every candidate) or `failed`.', body: operationSchema, headers: finishedOperationHeaders },
        202: { description: 'Still `notStarted` or `running`: ask again after Retry-After.', body: operationSchema, headers: pendingOperationHeaders },
        404: 'No such operation.',
      },
    },
    async handle({ params: { operationId }, request }, services) {
      const waitInSeconds = requestedWaitInSeconds(request);
      const operation = waitInSeconds === undefined ? await services.operations.get(operationId) : await services.awaitOperation(operationId, waitInSeconds * 1000);
      if (!operation) throw new NotFoundError(`Operation "${operationId}" does not exist`);
      if (isFinished(operation)) return finishedOperation(services.operations, operation, waitInSeconds);
      return { status: 202, headers: { 'retry-after': String(RETRY_AFTER_IN_SECONDS), ...preferenceApplied(waitInSeconds) }, body: operationBody(await withResults(services.operations, operation)) };
    },
  }),
];
