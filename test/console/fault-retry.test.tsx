/**
 * @jest-environment jsdom
 * @jest-environment-options {"customExportConditions": ["require", "default"]}
 */
/**
 * Issue 38, section 3, in the console (against an in-memory API): a faulted instance whose fault can be
 * retried offers "Retry trigger …", which starts the retry and follows its operation to its end; one that
 * cannot (a creation's fault) offers recovery only; an operation whose instances faulted says "completed
 * with faults", not a green "succeeded"; the operations list filters by outcome.
 */
import { configure, fireEvent, render, screen, waitFor, within } from '@testing-library/preact';
import type { ComponentChildren } from 'preact';
import { ApiContext } from '../../console/src/api-context';
import type { ConsoleApi } from '../../console/src/api/console-api';
import { formatHash, parseHash } from '../../console/src/lib/hash-route';
import { FaultPanel } from '../../console/src/pages/instance/fault-panel';
import { OperationsPage } from '../../console/src/pages/operations-page';
import { fakeApi, instance, workflow, type FakeApi } from './support/fake-api';

jest.mock('../../console/src/lib/render-mermaid', () => ({ renderMermaid: async () => '<svg></svg>' }));
configure({ asyncUtilTimeout: 10_000 });

function renderWith(api: FakeApi, children: ComponentChildren) {
  return render(<ApiContext.Provider value={api as unknown as ConsoleApi}>{children}</ApiContext.Provider>);
}

const faulted = (retryable: boolean) =>
  instance({
    status: 'faulted',
    fault: { message: 'action of transition "submit": 503 from the payments service', triggerId: 'submit-7', at: '2026-11-23T10:06:00.000Z', ...(retryable ? { retryable: true } : {}) },
  });

describe('retrying a fault in the console', () => {
  it('retries the trigger that faulted the instance and follows the operation to its end', async () => {
    const getOperation = jest.fn(async (operationId: string) => ({
      id: operationId,
      kind: 'bulk',
      bulk: { action: 'retry', filter: { workflowId: 'expense-claim', subject: 'claim-1', status: 'faulted', faultTriggerId: 'submit-7' } },
      status: 'succeeded' as const,
      outcome: 'succeeded',
      faulted: 0,
      createdAt: '2026-11-23T10:07:00.000Z',
      updatedAt: '2026-11-23T10:07:01.000Z',
      candidates: 1,
      summary: { transitioned: 1, faulted: 0 },
      instances: [{ instanceId: 'claim-1', outcome: 'transitioned', transitionId: 'submit', fromStateId: 'draft', toStateId: 'submitted' }],
    }));
    const api = fakeApi({ getOperation });
    const onRecovered = jest.fn();
    renderWith(api, <FaultPanel instance={faulted(true)} workflow={workflow} onRecovered={onRecovered} />);
    fireEvent.click(screen.getByRole('button', { name: 'Retry trigger submit-7' }));
    await waitFor(() => expect(api.retryInstance).toHaveBeenCalledWith('claim-1'));
    const operation = await screen.findByTestId('operation');
    await waitFor(() => expect(within(operation).getByTestId('operation-kind').textContent).toContain('Bulk retry of expense-claim instances'));
    await waitFor(() => expect(onRecovered).toHaveBeenCalled());
    expect(getOperation).toHaveBeenCalledWith('retry-1');
    // Once started, it cannot be sent twice from here.
    expect((screen.getByRole('button', { name: 'Retry trigger submit-7' }) as HTMLButtonElement).disabled).toBe(true);
  });

  it('shows why a retry was refused, and offers recovery alone for a fault with no trigger to retry', async () => {
    const api = fakeApi({
      retryInstance: jest.fn(async () => {
        throw Object.assign(new Error('conflict'), { problem: { title: 'Conflict', status: 409, detail: 'Instance "claim-1" is waiting, not faulted' } });
      }),
    });
    const { unmount } = renderWith(api, <FaultPanel instance={faulted(true)} workflow={workflow} onRecovered={() => undefined} />);
    fireEvent.click(screen.getByRole('button', { name: 'Retry trigger submit-7' }));
    expect(await screen.findByRole('alert')).toBeTruthy();
    unmount();
    renderWith(fakeApi(), <FaultPanel instance={faulted(false)} workflow={workflow} onRecovered={() => undefined} />);
    expect(screen.queryByRole('button', { name: /Retry/ })).toBeNull();
    expect(screen.getByRole('form', { name: 'Recover the instance' })).toBeTruthy();
  });

  it('lists an operation whose instances faulted as "completed with faults", and filters by outcome', async () => {
    const listOperations = jest.fn(async () => ({
      items: [
        {
          id: 'approve-7',
          kind: 'trigger',
          triggerId: 'approve-7',
          trigger: { name: 'Approve', subjects: ['batch:7'] },
          status: 'succeeded',
          outcome: 'completedWithFaults',
          faulted: 3,
          createdAt: '2026-11-23T10:06:00.000Z',
          updatedAt: '2026-11-23T10:06:01.000Z',
          candidates: 3,
          summary: { faulted: 3 },
        },
      ],
    }));
    const api = fakeApi({ listOperations });
    renderWith(api, <OperationsPage filter={{ outcome: 'completedWithFaults' }} />);
    const table = await screen.findByTestId('operations');
    const badge = within(table).getByText('completed with faults (3 faulted)');
    expect(badge.className).toContain('badge-completedWithFaults');
    expect(within(table).queryByText('succeeded')).toBeNull();
    expect(listOperations).toHaveBeenCalledWith({ outcome: 'completedWithFaults' }, undefined, expect.any(Number));
    expect((screen.getByLabelText('Outcome') as HTMLSelectElement).value).toBe('completedWithFaults');
    // The filter lives in the URL.
    expect(parseHash(formatHash({ page: 'operations', filter: { outcome: 'completedWithFaults' } }))).toEqual({ page: 'operations', filter: { outcome: 'completedWithFaults' } });
  });
});
