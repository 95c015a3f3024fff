/**
 * @jest-environment jsdom
 * @jest-environment-options {"customExportConditions": ["require", "default"]}
 */
/**
 * Decision 0021 in the console (against an in-memory API): an operation's page shows what it cost, kind
 * by kind, and a workflow's page what its operations cost per day, with the estimate and the date of the
 * prices it was made with; an operation recorded before costs were counted shows none.
 */
import { configure, render, screen, waitFor, within } from '@testing-library/preact';
import type { ComponentChildren } from 'preact';
import { ApiContext } from '../../console/src/api-context';
import type { ConsoleApi } from '../../console/src/api/console-api';
import type { Operation, OperationCost, WorkflowCost } from '../../src/client';
import { OperationPage } from '../../console/src/pages/operation-page';
import { WorkflowPage } from '../../console/src/pages/workflow-page';
import { fakeApi, type FakeApi } from './support/fake-api';

jest.mock('../../console/src/lib/render-mermaid', () => ({ renderMermaid: async () => '<svg></svg>' }));
configure({ asyncUtilTimeout: 10_000 });

function renderWith(api: FakeApi, children: ComponentChildren) {
  return render(<ApiContext.Provider value={api as unknown as ConsoleApi}>{children}</ApiContext.Provider>);
}

const cost = (tableWrite: number, calls = 0): OperationCost => ({
  storage: { tableRead: 1, tableQuery: 1, tableWrite, blobLease: 2, blobRead: 0, blobWrite: 0 },
  outbound: { calls, bytesSent: 120 * calls, bytesReceived: 40 * calls },
  activities: 0,
});

const operation = (overrides: Partial<Operation> = {}): Operation => ({
  id: 'op-c',
  kind: 'trigger',
  triggerId: 'op-c',
  trigger: { name: 'Approve', subjects: ['claim-1'] },
  status: 'succeeded',
  createdAt: '2026-11-23T10:06:00.000Z',
  updatedAt: '2026-11-23T10:06:01.000Z',
  candidates: 1,
  summary: { transitioned: 1 },
  instances: [{ instanceId: 'claim-1', outcome: 'transitioned' }],
  ...overrides,
});

describe('the cost of an operation', () => {
  it('lists its requests by kind, its outbound calls and activities', async () => {
    renderWith(fakeApi({ getOperation: jest.fn(async () => operation({ cost: cost(2, 1) })) }), <OperationPage operationId="op-c" />);
    const list = await screen.findByTestId('operation-cost');
    const value = (term: string) => within(list).getByText(term).nextElementSibling?.textContent;
    expect(value('storage requests')).toBe('6');
    expect(value('table read / query / write')).toBe('1 / 1 / 2');
    expect(value('blob lease / read / write')).toBe('2 / 0 / 0');
    expect(value('outbound calls')).toBe('1 (120 B sent, 40 B received)');
    expect(value('durable activities')).toBe('0');
  });

  it('shows none for an operation recorded before costs were counted', async () => {
    renderWith(fakeApi({ getOperation: jest.fn(async () => operation()) }), <OperationPage operationId="op-c" />);
    await screen.findByTestId('operation-kind');
    expect(screen.queryByTestId('operation-cost')).toBeNull();
  });
});

describe("the cost of a workflow's operations", () => {
  it('shows the total, a row per day with its estimate, and the date of the prices', async () => {
    const answer: WorkflowCost = {
      workflowId: 'expense-claim',
      since: '2026-10-24',
      operations: 3,
      cost: cost(6),
      estimate: { currency: 'EUR', total: 0.001234, storage: 0.001234, outbound: 0, activities: 0, storageRequests: 10 },
      days: [
        { day: '2026-11-22', operations: 1, cost: cost(2), estimate: { currency: 'EUR', total: 0.0004, storage: 0.0004, outbound: 0, activities: 0, storageRequests: 6 } },
        { day: '2026-11-23', operations: 2, cost: cost(4, 2), estimate: { currency: 'EUR', total: 0.000834, storage: 0.0008, outbound: 0.000034, activities: 0, storageRequests: 8 } },
      ],
      prices: { currency: 'EUR', region: 'westeurope', takenOn: '2026-12-01', source: 'our agreement' },
    };
    const api = fakeApi({ getWorkflowCost: jest.fn(async () => answer) });
    renderWith(api, <WorkflowPage workflowId="expense-claim" version={2} />);
    expect(await screen.findByTestId('workflow-cost-total')).toHaveProperty('textContent', '3 operations since 2026-10-24: 10 storage requests, estimated 0.001234 EUR');
    expect(api.getWorkflowCost).toHaveBeenCalledWith('expense-claim');
    const rows = within(screen.getByTestId('workflow-cost')).getAllByRole('row').slice(1);
    expect(rows.map((row) => [...row.querySelectorAll('th, td')].map((cell) => cell.textContent))).toEqual([
      ['2026-11-22', '1', '6', '0', '0', '0.000400 EUR'],
      ['2026-11-23', '2', '8', '2', '0', '0.000834 EUR'],
    ]);
    expect(screen.getByTestId('workflow-cost-prices').textContent).toContain('westeurope, taken on 2026-12-01');
  });

  it('says why when the cost cannot be read, and shows no table for a workflow without operations', async () => {
    const failing = fakeApi({ getWorkflowCost: jest.fn(async () => Promise.reject(new Error('storage down'))) });
    const first = renderWith(failing, <WorkflowPage workflowId="expense-claim" version={2} />);
    await waitFor(() => expect(screen.getByText(/Reading the cost failed/)).toBeTruthy());
    first.unmount();
    renderWith(fakeApi(), <WorkflowPage workflowId="expense-claim" version={2} />);
    expect((await screen.findByTestId('workflow-cost-total')).textContent).toContain('0 operations since 2026-10-24');
    expect(screen.queryByTestId('workflow-cost')).toBeNull();
  });
});
