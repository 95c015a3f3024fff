/**
 * The README's walkthrough with the typed client (src/client): every path, parameter, body and answer
 * is checked by TypeScript against the types generated from the OpenAPI document, with no casts. A
 * test runs it against the local server, twice. Try it: `npm start`, then
 * `npx tsx examples/client-walkthrough.ts http://127.0.0.1:7071/api`.
 *
 * It keeps to ids of its own, so it never changes what you have: the workflow `walkthrough-claim` (not your
 * `expense-claim`), a new claim id and claimant on every run, and queries narrowed to its workflow. Run
 * it as often as you like; an unchanged definition is not a new version.
 */
import { createSignalboxClient, waitForOperation, type WorkflowDefinition } from '../src/client';

export const expenseClaim: WorkflowDefinition = {
  id: 'walkthrough-claim',
  displayName: 'Expense claim (the client walkthrough\'s own)',
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
  // A new claim (and claimant) on every run, so a second run never meets the first one's.
  const run = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
  const claimId = options.claimId ?? `walkthrough-${run}`;
  const claimantId = `walkthrough-${run}`;

  // 1. Define the workflow: 201 the first time; after that, PUT with the current ETag, which answers the
  //    current version (200) while the definition is unchanged, and adds a version when it differs.
  const existing = await client.GET('/workflows/{workflowId}', { params: { path: { workflowId: expenseClaim.id } } });
  const defined = await client.PUT('/workflows/{workflowId}', {
    params: { path: { workflowId: expenseClaim.id }, header: existing.data ? { 'If-Match': existing.data.etag } : {} },
    body: expenseClaim,
  });
  if (!defined.data) throw new Error(`defining the workflow failed: ${defined.error?.detail}`);

  // 2. Start an instance.
  const started = await client.POST('/instances', { body: { workflowId: expenseClaim.id, instanceId: claimId, context: { claimantId } } });
  if (!started.data) throw new Error(`starting the instance failed: ${started.error?.detail}`);

  // 3. Send a trigger to a subject, then poll its operation until it has finished.
  const update = await client.POST('/triggers', { body: { name: 'Update', subjects: [`claimant:${claimantId}`], parameters: { amount: 120, description: 'Train' } } });
  if (!update.data) throw new Error(`the trigger was refused: ${update.error?.detail}`);
  // Without `Prefer: wait` the answer is always the 202 (AcceptedOperation).
  if (!('operationId' in update.data)) throw new Error('a trigger sent without Prefer: wait answered 200');
  const updated = await waitForOperation(client, update.data.operationId, { intervalInMs: 50 });

  // 4. Submit, addressed to the instance itself, waiting for the outcome in the same request
  //    (`Prefer: wait`): 200 with the finished operation, or 202 if it took longer than the wait.
  const submit = await client.POST('/instances/{instanceId}/triggers', {
    params: { path: { instanceId: claimId }, header: { Prefer: 'wait=10' } },
    body: { name: 'Submit', parameters: { at: '2026-11-22' } },
  });
  if (!submit.data) throw new Error(`the trigger was refused: ${submit.error?.detail}`);
  const submitted = 'operationId' in submit.data ? await waitForOperation(client, submit.data.operationId, { waitInSeconds: 10 }) : submit.data;

  // 5. Read the instance, then ask again with its ETag: 304 while nothing changed.
  const read = await client.GET('/instances/{instanceId}', { params: { path: { instanceId: claimId } } });
  if (!read.data) throw new Error(`reading the instance failed: ${read.error?.detail}`);
  const unchanged = await client.GET('/instances/{instanceId}', { params: { path: { instanceId: claimId }, header: { 'If-None-Match': read.data.etag } } });

  // 6. Its history, and this workflow's instances waiting for approvers, one page of at most 10.
  const history = await client.GET('/instances/{instanceId}/history', { params: { path: { instanceId: claimId } } });
  const waiting = await client.GET('/instances', { params: { query: { workflowId: expenseClaim.id, subject: 'approvers', status: 'waiting', maxPageSize: 10 } } });

  return {
    claimId,
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
