/**
 * @jest-environment jsdom
 * @jest-environment-options {"customExportConditions": ["require", "default"]}
 */
/**
 * Issue 24 in the console (against an in-memory API): the operations list (newest first, filters in the
 * URL, paging), an operation's results a page at a time, history entries linking to their operation,
 * the triggers offered that changed nothing, and recovery with a context patch.
 */
import { configure, fireEvent, render, screen, waitFor, within } from '@testing-library/preact';
import type { ComponentChildren } from 'preact';
import { ApiContext } from '../../console/src/api-context';
import type { ConsoleApi } from '../../console/src/api/console-api';
import type { ListedOperation, Operation } from '../../src/client';
import { RESULTS_PER_PAGE } from '../../console/src/components/operation-view';
import { formatHash, parseHash } from '../../console/src/lib/hash-route';
import { InstancePage } from '../../console/src/pages/instance-page';
import { OperationPage } from '../../console/src/pages/operation-page';
import { OperationsPage } from '../../console/src/pages/operations-page';
import { fakeApi, instance, type FakeApi } from './support/fake-api';

jest.mock('../../console/src/lib/render-mermaid', () => ({ renderMermaid: async () => '<svg></svg>' }));
configure({ asyncUtilTimeout: 10_000 });

function renderWith(api: FakeApi, children: ComponentChildren) {
  return render(<ApiContext.Provider value={api as unknown as ConsoleApi}>{children}</ApiContext.Provider>);
}

const listed = (id: string, overrides: Partial<Operation> = {}): ListedOperation & Partial<Operation> => ({
  id,
  kind: 'trigger',
  triggerId: id,
  trigger: { name: 'Approve', subjects: ['claim-1'], parameters: { by: 'ann' } },
  status: 'succeeded',
  createdAt: '2026-11-23T10:06:00.000Z',
  updatedAt: '2026-11-23T10:06:01.000Z',
  candidates: 1,
  summary: { transitioned: 1, faulted: 0 },
  ...overrides,
});

describe('OperationsPage', () => {
  it('lists operations newest first with what each was, counts them, and reads the filtered set 1,000 at a time', async () => {
    const listOperations = jest
      .fn()
      .mockResolvedValueOnce({
        items: [
          listed('op-1', { createdAt: '2026-11-23T10:01:00.000Z', status: 'failed', error: 'storage down' }),
          listed('op-b', {
            kind: 'bulk',
            triggerId: undefined,
            trigger: undefined,
            bulk: { action: 'cancel', filter: { workflowId: 'expense-claim', stateId: 'draft' } },
            summary: { cancelled: 3 },
            candidates: 3,
            createdAt: '2026-11-23T10:03:00.000Z',
          }),
        ],
        continuationToken: 'next',
      })
      .mockResolvedValueOnce({ items: [listed('op-2', { createdAt: '2026-11-23T10:02:00.000Z' })] });
    const api = fakeApi({ listOperations });
    renderWith(api, <OperationsPage filter={{ kind: 'trigger' }} />);
    const table = await screen.findByTestId('operations');
    expect(screen.getByTestId('operation-count').textContent).toBe('3 operations match');
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows.map((row) => within(row).getAllByRole('cell')[0]!.textContent)).toEqual(['op-b', 'op-2', 'op-1']);
    expect(rows[1]!.textContent).toContain('Trigger Approve to claim-1 with {"by":"ann"}');
    expect(rows[1]!.textContent).toContain('transitioned 1');
    expect(rows[0]!.textContent).toContain('Bulk cancel of expense-claim instances (stateId draft)');
    expect(within(rows[1]!).getByRole('link', { name: 'op-2' }).getAttribute('href')).toBe('#/operations/op-2');
    expect(
      within(table)
        .getByRole('columnheader', { name: /Created/ })
        .getAttribute('aria-sort'),
    ).toBe('descending');
    expect(listOperations.mock.calls).toEqual([
      [{ kind: 'trigger' }, undefined, 1000],
      [{ kind: 'trigger' }, 'next', 1000],
    ]);
  });

  it('sorts by a column (the order lives in the URL), and shows 50 a page', async () => {
    const items = Array.from({ length: 120 }, (_, index) =>
      listed(`op-${String(index).padStart(3, '0')}`, { candidates: (index * 7) % 120, createdAt: new Date(Date.UTC(2026, 10, 23, 10, 0, index)).toISOString() }),
    );
    const api = fakeApi({ listOperations: jest.fn(async () => ({ items })) });
    const { rerender } = renderWith(api, <OperationsPage filter={{}} />);
    const firstCells = () =>
      within(screen.getByTestId('operations'))
        .getAllByRole('row')
        .slice(1)
        .map((row) => within(row).getAllByRole('cell')[0]!.textContent);
    await screen.findByTestId('operations');
    expect(screen.getByTestId('operation-count').textContent).toBe('120 operations match');
    expect(firstCells()).toHaveLength(50);
    expect(firstCells()[0]).toBe('op-119');
    expect(screen.getByText('Page 1 of 3')).toBeTruthy();

    fireEvent.click(screen.getByRole('button', { name: 'Sort by Instances' }));
    expect(window.location.hash).toBe('#/operations?sort=candidates');
    const sort = parseHash(window.location.hash);
    expect(sort).toEqual({ page: 'operations', filter: {}, sort: { key: 'candidates', descending: false } });
    rerender(
      <ApiContext.Provider value={api as unknown as ConsoleApi}>
        <OperationsPage filter={{}} sort={{ key: 'candidates', descending: false }} />
      </ApiContext.Provider>,
    );
    // Numbers sort as numbers: 0, 1, 2 … not 0, 1, 10.
    const counts = () =>
      within(screen.getByTestId('operations'))
        .getAllByRole('row')
        .slice(1)
        .map((row) => Number(within(row).getAllByRole('cell')[3]!.textContent));
    await waitFor(() => expect(counts().slice(0, 12)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]));
    fireEvent.click(screen.getByRole('button', { name: 'Next page' }));
    expect(screen.getByText('Page 2 of 3')).toBeTruthy();
    expect(counts()[0]).toBe(50);
  });

  it('says "5,000+" past what it reads, and that the order is among those read', async () => {
    let served = 0;
    const listOperations = jest.fn(async (_filter: unknown, _token: unknown, size: number) => {
      const items = Array.from({ length: size }, (_, index) => listed(`op-${served + index}`));
      served += size;
      return { items, continuationToken: 'more' };
    });
    renderWith(fakeApi({ listOperations }), <OperationsPage filter={{}} />);
    expect((await screen.findByTestId('operation-count')).textContent).toBe('5,000+ operations match');
    expect(screen.getByText(/Sorted among the first 5,000 read/)).toBeTruthy();
    expect(listOperations).toHaveBeenCalledTimes(5);
  });

  it('says when no operation matches, and the filters live in the URL', async () => {
    renderWith(fakeApi(), <OperationsPage filter={{ status: 'failed' }} />);
    expect(await screen.findByText('No operation matches these filters')).toBeTruthy();
    expect(parseHash('#/operations?kind=bulk&status=failed&workflowId=claim')).toEqual({ page: 'operations', filter: { kind: 'bulk', status: 'failed', workflowId: 'claim' } });
    expect(parseHash('#/operations?kind=nonsense')).toEqual({ page: 'operations', filter: {} });
    expect(formatHash({ page: 'operations', filter: { kind: 'migration' } })).toBe('#/operations?kind=migration');
    expect(parseHash('#/operations?kind=bulk&sort=-candidates')).toEqual({ page: 'operations', filter: { kind: 'bulk' }, sort: { key: 'candidates', descending: true } });
    expect(parseHash('#/operations?sort=nonsense')).toEqual({ page: 'operations', filter: {} });
    expect(formatHash({ page: 'operations', filter: { kind: 'bulk' }, sort: { key: 'status', descending: false } })).toBe('#/operations?kind=bulk&sort=status');
  });
});

describe('OperationPage results', () => {
  it(`shows ${RESULTS_PER_PAGE} results at a time, with pages, not one endless table`, async () => {
    const instances = Array.from({ length: 120 }, (_, index) => ({ instanceId: `claim-${index}`, outcome: 'transitioned' as const }));
    renderWith(fakeApi({ getOperation: jest.fn(async () => listed('op-big', { candidates: 120, summary: { transitioned: 120 }, instances })) }), <OperationPage operationId="op-big" />);
    const table = await screen.findByTestId('outcomes');
    expect(within(table).getAllByRole('row')).toHaveLength(RESULTS_PER_PAGE + 1);
    expect(screen.getByTestId('results-range').textContent).toBe('1–50 of 120');
    expect((screen.getByRole('button', { name: 'Previous results' }) as HTMLButtonElement).disabled).toBe(true);
    fireEvent.click(screen.getByRole('button', { name: 'Next results' }));
    fireEvent.click(screen.getByRole('button', { name: 'Next results' }));
    expect(screen.getByTestId('results-range').textContent).toBe('101–120 of 120');
    expect(within(screen.getByTestId('outcomes')).getAllByRole('row')).toHaveLength(21);
    expect(screen.getByText('claim-119')).toBeTruthy();
    expect((screen.getByRole('button', { name: 'Next results' }) as HTMLButtonElement).disabled).toBe(true);
  });

  it('names the trigger sent: its name, subjects and parameters', async () => {
    renderWith(fakeApi({ getOperation: jest.fn(async () => listed('op-t', { instances: [] })) }), <OperationPage operationId="op-t" />);
    expect((await screen.findByTestId('operation-kind')).textContent).toBe('Trigger Approve to claim-1 with {"by":"ann"}');
  });
});

describe('InstancePage: operations, offers, repair', () => {
  it('links each history entry to its operation, and lists the triggers that changed nothing, with why', async () => {
    const api = fakeApi({
      getHistory: jest.fn(async () => ({
        items: [
          { at: '2026-11-23T10:00:00.000Z', event: 'created', triggerId: null, operationId: null, transitionId: null, fromStateId: null, toStateId: 'draft', status: 'waiting' },
          { at: '2026-11-23T10:01:00.000Z', event: 'cancelled', triggerId: null, operationId: 'op-bulk', transitionId: null, fromStateId: 'draft', toStateId: 'draft', status: 'cancelled' },
        ],
      })),
      getOffers: jest.fn(async () => ({
        items: [
          {
            operationId: 'op-x',
            triggerName: 'Approve',
            at: '2026-11-23T10:00:30.000Z',
            outcome: 'noTransition',
            fromStateId: 'draft',
            trace: [{ path: 'states.draft.transitions[0].conditions[0]', type: 'triggerName', result: false }],
          },
        ],
      })),
    });
    renderWith(api, <InstancePage instanceId="claim-1" />);
    const history = await screen.findByTestId('history');
    expect(within(history).getByRole('link', { name: 'op-bulk' }).getAttribute('href')).toBe('#/operations/op-bulk');
    const offers = await screen.findByTestId('offers');
    expect(offers.textContent).toContain('Approve');
    expect(offers.textContent).toContain('noTransition');
    expect(within(offers).getByRole('link', { name: 'op-x' }).getAttribute('href')).toBe('#/operations/op-x');
    expect(within(offers).getByText('Why (1)')).toBeTruthy();
  });

  it('recovers with a context patch, and refuses a patch that is not JSON before calling the API', async () => {
    const faulted = instance({ status: 'faulted', stateId: 'submitted', fault: { message: 'entry condition [0] of state "submitted" is false', triggerId: null, at: '2026-11-23T10:07:00.000Z' } });
    const api = fakeApi({ getInstance: jest.fn(async () => faulted) });
    renderWith(api, <InstancePage instanceId="claim-1" />);
    const patch = (await screen.findByLabelText('Repair the context first (optional)')) as HTMLTextAreaElement;
    fireEvent.input(patch, { target: { value: '{"amount": ' } });
    fireEvent.click(screen.getByRole('button', { name: 'Recover' }));
    expect((await screen.findByRole('alert')).textContent).toContain('The context patch is not JSON');
    expect(api.recoverInstance).not.toHaveBeenCalled();
    fireEvent.input(patch, { target: { value: '{"amount": 120, "junk": null}' } });
    fireEvent.click(screen.getByRole('button', { name: 'Recover' }));
    await waitFor(() => expect(api.recoverInstance).toHaveBeenCalledWith('claim-1', 'submitted', { amount: 120, junk: null }));
  });
});

describe('operations data is rendered as text, never markup', () => {
  const markup = '<img src=x onerror="window.owned=1"><a href="javascript:window.owned=2">link</a><script>window.owned=3</script><b>bold</b>';
  const hostile = (id: string, overrides: Partial<Operation> = {}) =>
    listed(id, {
      trigger: { name: `Approve${markup}`, subjects: [`claim${markup}`], parameters: { note: markup } },
      status: 'failed',
      error: `failed ${markup}`,
      instances: [{ instanceId: `claim${markup}`, outcome: 'faulted', error: `boom ${markup}` }],
      ...overrides,
    });
  /** Elements the data could have made: none may exist inside `root`. */
  const madeFromData = (root: Element) => root.querySelectorAll('img, script, b, a[href^="javascript:"], input[name="password"]');

  it('the operations list, an operation, a bulk filter and its results show names, subjects, parameters and errors as text', async () => {
    const bulk = hostile('op-bulk', { kind: 'bulk', triggerId: undefined, trigger: undefined, bulk: { action: 'cancel', filter: { workflowId: 'expense-claim', stateId: `draft${markup}` } } });
    const api = fakeApi({ listOperations: jest.fn(async () => ({ items: [hostile('op-1'), bulk] })), getOperation: jest.fn(async () => hostile('op-1')) });
    const list = renderWith(api, <OperationsPage filter={{}} />);
    const table = await screen.findByTestId('operations');
    expect(table.textContent).toContain(`Approve${markup}`);
    expect(table.textContent).toContain(`stateId draft${markup}`);
    expect(madeFromData(list.container)).toHaveLength(0);
    list.unmount();

    const page = renderWith(api, <OperationPage operationId="op-1" />);
    const outcomes = await screen.findByTestId('outcomes');
    expect(outcomes.textContent).toContain(`claim${markup}`);
    expect((await screen.findByTestId('operation-kind')).textContent).toContain(`Approve${markup}`);
    expect(madeFromData(page.container)).toHaveLength(0);
    expect((window as unknown as { owned?: number }).owned).toBeUndefined();
  });

  it('the offers of an instance show the trigger name and the trace as text', async () => {
    const api = fakeApi({
      getOffers: jest.fn(async () => ({
        items: [
          {
            operationId: `op${markup}`,
            triggerName: `Approve${markup}`,
            at: '2026-11-23T10:00:30.000Z',
            outcome: 'noTransition',
            fromStateId: 'draft',
            trace: [{ path: `states.draft${markup}`, type: 'expression', result: false, detail: markup }],
          },
        ],
      })),
    });
    const page = renderWith(api, <InstancePage instanceId="claim-1" />);
    const offers = await screen.findByTestId('offers');
    expect(offers.textContent).toContain(`Approve${markup}`);
    expect(madeFromData(page.container)).toHaveLength(0);
  });
});
