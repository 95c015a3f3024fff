/**
 * History size per entry, before and after history records (issue 40, decision 0026): runs a typical
 * expense-claim workflow (creation with a context of a dozen fields, a submit with parameters and an
 * external check, an automatic routing step, an approval, payment) on the in-memory engine and reports the
 * stored JSON size of each entry with its record and without it (what entries held before records).
 * Run on demand: `npm run bench:history-size`.
 */
import { Engine, type ExternalRequest, type ExternalResponse, type HistoryEntry, type WorkflowDefinitionInput } from '../src/engine';
import { createInMemoryPorts } from '../src/testing';

const claim: WorkflowDefinitionInput = {
  id: 'claim',
  displayName: 'Expense claim',
  initialStateId: 'draft',
  states: {
    draft: {
      transitions: [
        {
          id: 'submit',
          targetStateId: 'routing',
          conditions: [
            { type: 'triggerName', name: 'Submit' },
            { type: 'invokeExternalService', url: 'https://policy.example/check' },
          ],
          actions: [{ type: 'setContext', expressions: { amount: 'trigger.parameters.amount', lines: 'trigger.parameters.lines', submittedAt: 'trigger.parameters.at' } }],
        },
      ],
    },
    routing: { transitions: [{ id: 'small', targetStateId: 'approval', automatic: true, otherwise: true }] },
    approval: {
      transitions: [
        { id: 'approve', targetStateId: 'payment', conditions: [{ type: 'triggerName', name: 'Approve' }], actions: [{ type: 'setContext', expressions: { approvedBy: 'trigger.parameters.by' } }] },
        { id: 'reject', targetStateId: 'rejected', conditions: [{ type: 'triggerName', name: 'Reject' }] },
      ],
    },
    payment: {
      transitions: [{ id: 'pay', targetStateId: 'paid', conditions: [{ type: 'triggerName', name: 'Pay' }], actions: [{ type: 'setContext', expressions: { paidRef: 'trigger.parameters.ref' } }] }],
    },
    paid: {},
    rejected: {},
  },
};

async function main(): Promise<void> {
  const http = { send: async (_request: ExternalRequest): Promise<ExternalResponse> => ({ status: 200, body: true }) };
  const engine = new Engine(createInMemoryPorts(), { http, logger: { info() {}, warn() {}, error() {} } });
  await engine.createWorkflow(engine.validateWorkflow(claim));
  const context = {
    claimant: { id: 'emp-1042', name: 'Ann Example', department: 'Sales', costCentre: 'CC-204' },
    currency: 'EUR',
    project: 'P-77',
    notes: 'Client visit, Lyon',
    tags: ['travel', 'q4'],
  };
  const runs = 200;
  for (let run = 0; run < runs; run++) {
    const id = `c${run}`;
    await engine.createInstance({ workflowId: 'claim', instanceId: id, context });
    const lines = [
      { sku: 'train', amount: 120.5, date: '2026-11-20' },
      { sku: 'hotel', amount: 210, date: '2026-11-20' },
      { sku: 'meal', amount: 34.2, date: '2026-11-21' },
    ];
    await engine.applyTrigger(id, { id: `${id}-submit`, name: 'Submit', subjects: [id], contentType: 'application/json', parameters: { amount: 364.7, lines, at: '2026-11-22T09:00:00Z' } });
    await engine.applyTrigger(id, { id: `${id}-approve`, name: 'Approve', subjects: [id], parameters: { by: 'mgr-7' } });
    await engine.applyTrigger(id, { id: `${id}-pay`, name: 'Pay', subjects: [id], parameters: { ref: `PAY-${run}` } });
  }
  const entries: HistoryEntry[] = [];
  for (let run = 0; run < runs; run++) entries.push(...(await engine.getHistory(`c${run}`, { maxPageSize: 100 })).items);
  const size = (value: unknown) => Buffer.byteLength(JSON.stringify(value), 'utf8');
  const before = entries.map(({ record: _record, ...entry }) => size(entry));
  const after = entries.map(size);
  const total = (values: number[]) => values.reduce((sum, value) => sum + value, 0);
  const mean = (values: number[]) => Math.round(total(values) / values.length);
  const max = (values: number[]) => Math.max(...values);
  console.log(`history-size: ${runs} claims, ${entries.length} entries (${entries.length / runs} per claim)`);
  console.log(`  before (no record): mean ${mean(before)} B, max ${max(before)} B per entry; ${total(before) / runs} B per claim`);
  console.log(`  after (detail full): mean ${mean(after)} B, max ${max(after)} B per entry; ${total(after) / runs} B per claim (x${(total(after) / total(before)).toFixed(2)})`);
  const byEvent = new Map<string, number[]>();
  for (const entry of entries) {
    const kind = `${entry.event}${entry.record?.partOfChange !== undefined ? ' (automatic step)' : ''}`;
    byEvent.set(kind, [...(byEvent.get(kind) ?? []), size(entry)]);
  }
  for (const [event, sizes] of byEvent) console.log(`  ${event}: mean ${mean(sizes)} B`);
}

void main();
