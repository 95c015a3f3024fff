/**
 * The README's walkthrough with the typed client (src/client): every path, parameter, body and answer
 * is checked by TypeScript against the types generated from the OpenAPI document, with no casts. A
 * test runs it against the local server. Try it: `npm start`, then
 * `npx tsx examples/client-walkthrough.ts http://127.0.0.1:7071/api`.
 */
import { createSignalboxClient, waitForOperation, type WorkflowDefinition } from '../src/client';

export const expenseClaim: WorkflowDefinition = {
  id: 'expense-claim',
  displayName: 'Simple expense claim',
  initialStateId: 'waiting-for-submission',
  states: {
    'waiting-for-submission': {
      interests: ['claimant:{{context.claimantId}}'],
      transitions: [
        {
          id: 'update',
          targetStateId: 'waiting-for-submission',
          conditions: [{ type: 'triggerName', name: 'Update' }],
          actions: [{ type: 'setContext', expressions: { amount: 'trigger.parameters.amount', description: 'trigger.parameters.description' } }],
        },
        {
          id: 'submit',
          targetStateId: 'waiting-for-approval',
          conditions: [{ type: 'triggerName', name: 'Submit' }],
          actions: [{ type: 'setContext', expressions: { submittedAt: 'trigger.parameters.at' } }],
        },
      ],
    },
    'waiting-for-approval': {
      interests: ['approvers'],
      entryConditions: [{ type: 'expression', expression: '$exists(context.amount) and context.amount > 0' }],
      transitions: [{ id: 'approve', targetStateId: 'paid', conditions: [{ type: 'all', conditions: [{ type: 'triggerName', name: 'Approve' }, { type: 'triggerParameter', parameter: 'by', test: 'exists' }] }] }],
    },
    paid: {},
  },
};

/** Runs the walkthrough against `baseUrl` (ending in /api) and returns what it saw. */
export async function runClientWalkthrough(baseUrl: string, options: { apiKey?: string; claimId?: string } = {}) {
  const client = createSignalboxClient({ baseUrl, ...(options.apiKey ? { apiKey: options.apiKey } : {}) });
  const claimId = options.claimId ?? 'claim-42';

  // 1. Define the workflow: 201 the first time; after that, a new version needs the current ETag.
  const existing = await client.GET('/workflows/{workflowId}', { params: { path: { workflowId: expenseClaim.id } } });
  const defined = await client.PUT('/workflows/{workflowId}', {
    params: { path: { workflowId: expenseClaim.id }, header: existing.data ? { 'If-Match': existing.data.etag } : {} },
    body: expenseClaim,
  });
  if (!defined.data) throw new Error(`defining the workflow failed: ${defined.error?.detail}`);

  // 2. Start an instance.
  const started = await client.POST('/instances', { body: { workflowId: expenseClaim.id, instanceId: claimId, context: { claimantId: 'ann' } } });
  if (!started.data) throw new Error(`starting the instance failed: ${started.error?.detail}`);

  // 3. Send a trigger to a subject, then wait for its operation.
  const update = await client.POST('/triggers', { body: { name: 'Update', subjects: ['claimant:ann'], parameters: { amount: 120, description: 'Train' } } });
  if (!update.data) throw new Error(`the trigger was refused: ${update.error?.detail}`);
  const updated = await waitForOperation(client, update.data.operationId, { intervalInMs: 50 });

  // 4. Submit, addressed to the instance itself.
  const submit = await client.POST('/instances/{instanceId}/triggers', { params: { path: { instanceId: claimId } }, body: { name: 'Submit', parameters: { at: '2026-11-22' } } });
  if (!submit.data) throw new Error(`the trigger was refused: ${submit.error?.detail}`);
  const submitted = await waitForOperation(client, submit.data.operationId, { intervalInMs: 50 });

  // 5. Read the instance, then ask again with its ETag: 304 while nothing changed.
  const read = await client.GET('/instances/{instanceId}', { params: { path: { instanceId: claimId } } });
  if (!read.data) throw new Error(`reading the instance failed: ${read.error?.detail}`);
  const unchanged = await client.GET('/instances/{instanceId}', { params: { path: { instanceId: claimId }, header: { 'If-None-Match': read.data.etag } } });

  // 6. Its history, and the instances waiting for approvers, one page of at most 10.
  const history = await client.GET('/instances/{instanceId}/history', { params: { path: { instanceId: claimId } } });
  const waiting = await client.GET('/instances', { params: { query: { subject: 'approvers', status: 'waiting', maxPageSize: 10 } } });

  return {
    version: defined.data.version,
    instance: read.data,
    updateSummary: updated.summary,
    submitOutcome: submitted.instances[0]?.outcome,
    notModifiedStatus: unchanged.response.status,
    history: history.data?.items.map((entry) => `${entry.fromStateId ?? '∅'} → ${entry.toStateId}`) ?? [],
    waitingForApproval: waiting.data?.items.map((instance) => instance.id) ?? [],
  };
}

if (require.main === module) {
  runClientWalkthrough(process.argv[2] ?? 'http://127.0.0.1:7071/api').then(
    (result) => console.log(JSON.stringify(result, null, 2)),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
