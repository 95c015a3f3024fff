/**
 * @jest-environment jsdom
 * @jest-environment-options {"customExportConditions": ["require", "default"]}
 */
/**
 * The console's pages against an in-memory API: what they show (including empty states and problems)
 * and what they ask the API to do. Mermaid is replaced by a stand-in that echoes the diagram text, so
 * the tests see exactly what would be drawn; the browser tests draw it for real.
 */
import { configure, fireEvent, render, screen, waitFor, within } from '@testing-library/preact';
import type { ComponentChildren } from 'preact';
import { ApiContext } from '../../console/src/api-context';
import { ApiError } from '../../console/src/api/api-error';
import type { ConsoleApi } from '../../console/src/api/console-api';
import { ProblemAlert } from '../../console/src/components/problem-alert';
import { InstancePage } from '../../console/src/pages/instance-page';
import { InstancesPage } from '../../console/src/pages/instances-page';
import { OperationPage } from '../../console/src/pages/operation-page';
import { WorkflowPage } from '../../console/src/pages/workflow-page';
import { WorkflowsPage } from '../../console/src/pages/workflows-page';
import { fakeApi, instance, workflow, type FakeApi } from './support/fake-api';

jest.mock('../../console/src/lib/render-mermaid', () => ({
  renderMermaid: async (text: string) => `<svg><desc>${text.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</desc></svg>`,
}));

// findBy/waitFor default to 1 s, which a loaded CI machine can miss while jsdom renders; the assertions
// are unchanged, only the patience.
configure({ asyncUtilTimeout: 10_000 });

function renderWith(api: FakeApi, children: ComponentChildren) {
  return render(<ApiContext.Provider value={api as unknown as ConsoleApi}>{children}</ApiContext.Provider>);
}

const diagramText = async () => {
  await waitFor(() => expect(screen.getByTestId('diagram').querySelector('desc')).not.toBeNull());
  return screen.getByTestId('diagram').querySelector('desc')!.textContent!;
};

describe('ProblemAlert', () => {
  it('shows the title, status, detail and every invalid field by its path', () => {
    render(<ProblemAlert problem={{ title: 'Invalid request', status: 400, detail: 'The body is invalid', errors: [{ path: 'stateId', message: 'Required' }] }} />);
    const alert = screen.getByRole('alert');
    expect(alert.textContent).toContain('Invalid request (400)');
    expect(alert.textContent).toContain('The body is invalid');
    expect(alert.textContent).toContain('stateId: Required');
  });

  it('says where the key goes on a 401', () => {
    render(<ProblemAlert problem={{ title: 'Unauthorized', status: 401 }} />);
    expect(screen.getByRole('alert').textContent).toContain('Enter the API key');
  });
});

describe('WorkflowsPage', () => {
  it('lists each workflow with a link per version, newest first', async () => {
    renderWith(fakeApi(), <WorkflowsPage />);
    const versions = await screen.findByRole('list', { name: 'Versions of expense-claim' });
    expect(
      within(versions)
        .getAllByRole('link')
        .map((link) => [link.textContent, link.getAttribute('href')]),
    ).toEqual([
      ['v2 (latest)', '#/workflows/expense-claim?version=2'],
      ['v1', '#/workflows/expense-claim?version=1'],
    ]);
  });

  it("shows how many of each workflow's instances are faulted, linking to them (issue 38)", async () => {
    const listInstances = jest.fn(async () => ({ items: [instance({ id: 'claim-1', status: 'faulted' }), instance({ id: 'claim-2', status: 'faulted' })] }));
    renderWith(fakeApi({ listInstances }), <WorkflowsPage />);
    const cell = await screen.findByTestId('faulted-expense-claim');
    await waitFor(() => expect(cell.textContent).toBe('2 faulted'));
    expect(within(cell).getByRole('link').getAttribute('href')).toBe('#/instances?workflowId=expense-claim&status=faulted');
    expect(listInstances).toHaveBeenCalledWith({ workflowId: 'expense-claim', status: 'faulted' }, undefined, 100);
  });

  it('shows how to define a workflow when there is none', async () => {
    renderWith(fakeApi({ listWorkflows: jest.fn(async () => ({ items: [] })) }), <WorkflowsPage />);
    expect((await screen.findByText('No workflows yet')).textContent).toBe('No workflows yet');
  });

  it('shows the problem when the list fails', async () => {
    const failing = jest.fn(async () => {
      throw new ApiError({ title: 'Unauthorized', status: 401, detail: 'A valid key is required in the x-functions-key header' });
    });
    renderWith(fakeApi({ listWorkflows: failing }), <WorkflowsPage />);
    expect((await screen.findByRole('alert')).textContent).toContain('A valid key is required');
  });
});

describe('WorkflowPage', () => {
  it('draws the counts on the diagram of the version shown and tabulates them per status', async () => {
    const api = fakeApi({
      listInstances: jest.fn(async () => ({
        items: [instance({ id: 'a' }), instance({ id: 'b', status: 'faulted' }), instance({ id: 'c', stateId: 'submitted', status: 'complete' }), instance({ id: 'old', workflowVersion: 1 })],
      })),
    });
    renderWith(api, <WorkflowPage workflowId="expense-claim" version={2} />);
    await waitFor(async () => expect(await diagramText()).toContain('s0 : 1 waiting · 1 faulted'));
    expect(await diagramText()).toContain('s1 : 1 complete');
    expect(api.getDiagram).toHaveBeenCalledWith('expense-claim', { version: 2 });
    const draft = within(screen.getByTestId('state-counts')).getByRole('row', { name: /Draft/ });
    // initializing, waiting, suspended, faulted, complete, cancelled, total
    expect(
      within(draft)
        .getAllByRole('cell')
        .map((cell) => cell.textContent),
    ).toEqual(['0', '1', '0', '1', '0', '0', '2']);
  });
});

describe('InstancesPage', () => {
  it('reads every page of the filtered list with the continuation token, and shows them together', async () => {
    const listInstances = jest.fn(async (_filter: unknown, token?: string) =>
      token ? { items: [instance({ id: 'second-page' })] } : { items: [instance({ id: 'first-page' })], continuationToken: 'next-1' },
    );
    renderWith(fakeApi({ listInstances }), <InstancesPage filter={{ workflowId: 'expense-claim', status: 'waiting' }} />);
    await screen.findByRole('link', { name: 'first-page' });
    expect(screen.getByRole('link', { name: 'second-page' })).toBeTruthy();
    expect(listInstances).toHaveBeenLastCalledWith({ workflowId: 'expense-claim', status: 'waiting' }, 'next-1', 1000);
    // One page of rows: no pager.
    expect(screen.queryByRole('button', { name: 'Next page' })).toBeNull();
  });

  it('searches a workflow that declares indexes by the filter in the URL, and counts per state by the same filter', async () => {
    const indexed = { ...workflow, indexes: [{ name: 'amount', type: 'number' as const, expression: 'context.amount' }] };
    const api = fakeApi({ getWorkflow: jest.fn(async () => indexed) });
    renderWith(api, <InstancesPage filter={{ workflowId: 'expense-claim' }} search="amount > 5" />);
    await screen.findByRole('link', { name: 'claim-1' });
    expect(api.searchInstances).toHaveBeenCalledWith('expense-claim', 'amount > 5', undefined, 1000);
    expect(api.listInstances).not.toHaveBeenCalled();
    const counts = await screen.findByRole('navigation', { name: 'Instances per state' });
    expect(api.countInstances).toHaveBeenCalledWith({ workflowId: 'expense-claim', groupBy: 'stateId', filter: 'amount > 5' });
    const href = within(counts).getByRole('link', { name: 'draft 1' }).getAttribute('href')!;
    expect(new URLSearchParams(href.split('?')[1]).get('filter')).toBe("(amount > 5) and stateId = 'draft'");
    expect((screen.getByRole('combobox', { name: 'Filter' }) as HTMLInputElement).value).toBe('amount > 5');
  });

  it('says a workflow without indexes cannot be searched by a filter, and offers no filter bar', async () => {
    renderWith(fakeApi(), <InstancesPage filter={{ workflowId: 'expense-claim' }} />);
    expect((await screen.findByTestId('not-indexed')).textContent).toContain('declares no indexes');
    expect(screen.queryByRole('combobox', { name: 'Filter' })).toBeNull();
  });

  it('says when nothing matches the filters', async () => {
    renderWith(fakeApi({ listInstances: jest.fn(async () => ({ items: [] })) }), <InstancesPage filter={{ subject: 'nobody' }} />);
    expect((await screen.findByText('No instance matches these filters')).textContent).toBeTruthy();
  });
});

describe('InstancePage', () => {
  it('shows the instance on its highlighted diagram, with context, interests and history', async () => {
    const api = fakeApi({
      getHistory: jest.fn(async () => ({
        items: [{ at: '2026-11-23T10:00:00.000Z', event: 'created', triggerId: null, transitionId: null, fromStateId: null, toStateId: 'draft', status: 'waiting' as const }],
      })),
    });
    renderWith(api, <InstancePage instanceId="claim-1" />);
    await diagramText();
    expect(api.getDiagram).toHaveBeenCalledWith('expense-claim', { version: 2, instanceId: 'claim-1' });
    expect(screen.getByTestId('interests').textContent).toContain('claimant:ann');
    expect(screen.getByText('claimantId').closest('li')!.textContent).toContain('"ann"');
    expect((await screen.findByTestId('history')).textContent).toContain('created into draft');
    expect(screen.getByTestId('available-triggers').textContent).toContain('Submit takes submit to submitted');
  });

  it('previews a trigger with a dry run and sends exactly what was previewed', async () => {
    const api = fakeApi();
    renderWith(api, <InstancePage instanceId="claim-1" />);
    const name = (await screen.findByLabelText('Trigger name')) as HTMLInputElement;
    await waitFor(() => expect(name.value).toBe('Submit'));
    const send = screen.getByRole('button', { name: 'Send for real' }) as HTMLButtonElement;
    expect(send.disabled).toBe(true);

    fireEvent.input(screen.getByLabelText('Parameters (JSON object, optional)'), { target: { value: '{"at": "2026-11-23"}' } });
    fireEvent.click(screen.getByRole('button', { name: 'Dry run' }));
    const preview = await screen.findByTestId('dry-run');
    expect(preview.textContent).toContain('Dry run: transitioned');
    expect(preview.textContent).toContain('triggerName: held');
    expect(api.dryRunInstanceTrigger).toHaveBeenCalledWith('claim-1', { name: 'Submit', parameters: { at: '2026-11-23' } });
    expect(api.sendInstanceTrigger).not.toHaveBeenCalled();

    fireEvent.click(screen.getByRole('button', { name: 'Send for real' }));
    await screen.findByTestId('outcomes');
    expect(api.sendInstanceTrigger).toHaveBeenCalledWith('claim-1', { name: 'Submit', parameters: { at: '2026-11-23' } });
  });

  it('asks for a new dry run when the trigger changes after one', async () => {
    renderWith(fakeApi(), <InstancePage instanceId="claim-1" />);
    await screen.findByLabelText('Trigger name');
    await waitFor(() => expect((screen.getByLabelText('Trigger name') as HTMLInputElement).value).toBe('Submit'));
    fireEvent.click(screen.getByRole('button', { name: 'Dry run' }));
    await screen.findByTestId('dry-run');
    fireEvent.input(screen.getByLabelText('Trigger name'), { target: { value: 'Abandon' } });
    expect(screen.queryByTestId('dry-run')).toBeNull();
    expect((screen.getByRole('button', { name: 'Send for real' }) as HTMLButtonElement).disabled).toBe(true);
  });

  it('refuses parameters that are not a JSON object, before calling the API', async () => {
    const api = fakeApi();
    renderWith(api, <InstancePage instanceId="claim-1" />);
    fireEvent.input(await screen.findByLabelText('Parameters (JSON object, optional)'), { target: { value: '[1, 2]' } });
    fireEvent.click(screen.getByRole('button', { name: 'Dry run' }));
    expect((await screen.findByText('Parameters must be a JSON object')).textContent).toBeTruthy();
    expect(api.dryRunInstanceTrigger).not.toHaveBeenCalled();
  });

  it('shows the problem when a send is refused', async () => {
    const api = fakeApi({
      sendInstanceTrigger: jest.fn(async () => {
        throw new ApiError({ title: 'Invalid request', status: 400, detail: 'The trigger is invalid', errors: [{ path: 'name', message: 'Too long' }] });
      }),
    });
    renderWith(api, <InstancePage instanceId="claim-1" />);
    await waitFor(() => expect((screen.getByLabelText('Trigger name') as HTMLInputElement).value).toBe('Submit'));
    fireEvent.input(screen.getByLabelText('Trigger name'), { target: { value: 'X' } });
    fireEvent.click(screen.getByRole('button', { name: 'Dry run' }));
    await screen.findByTestId('dry-run');
    fireEvent.click(screen.getByRole('button', { name: 'Send for real' }));
    // The title and detail in the alert; the invalid field beside its input.
    expect((await screen.findByRole('alert')).textContent).toContain('The trigger was not accepted: Invalid request (400)');
    expect(screen.getByText('Too long').id).toBe(screen.getByLabelText('Trigger name').getAttribute('aria-describedby'));
  });

  it('recovers a faulted instance into the state chosen', async () => {
    const faulted = instance({ status: 'faulted', stateId: 'submitted', fault: { message: 'Unable to cast value to a number', triggerId: 't-9', at: '2026-11-23T10:07:00.000Z' } });
    const api = fakeApi({ getInstance: jest.fn(async () => faulted) });
    renderWith(api, <InstancePage instanceId="claim-1" />);
    expect((await screen.findByTestId('fault-message')).textContent).toBe('Unable to cast value to a number');
    expect(screen.getByText('A faulted instance takes no triggers.')).toBeTruthy();
    const select = screen.getByLabelText('Recover into state') as HTMLSelectElement;
    await waitFor(() => expect(select.options.length).toBe(2));
    expect(select.value).toBe('submitted');
    fireEvent.change(select, { target: { value: 'draft' } });
    fireEvent.click(screen.getByRole('button', { name: 'Recover' }));
    await waitFor(() => expect(api.recoverInstance).toHaveBeenCalledWith('claim-1', 'draft'));
    await waitFor(() => expect(api.getInstance).toHaveBeenCalledTimes(2));
  });

  it('cancels only after a confirmation', async () => {
    const api = fakeApi();
    renderWith(api, <InstancePage instanceId="claim-1" />);
    fireEvent.click(await screen.findByRole('button', { name: 'Cancel instance…' }));
    fireEvent.click(screen.getByRole('button', { name: 'Keep it' }));
    expect(api.cancelInstance).not.toHaveBeenCalled();
    fireEvent.click(screen.getByRole('button', { name: 'Cancel instance…' }));
    fireEvent.click(screen.getByRole('button', { name: 'Yes, cancel it' }));
    await waitFor(() => expect(api.cancelInstance).toHaveBeenCalledWith('claim-1'));
  });
});

describe('OperationPage', () => {
  it('polls while the operation runs, showing progress, then its summary and outcomes with traces', async () => {
    jest.useFakeTimers();
    try {
      const running = { id: 'op-7', status: 'running' as const, createdAt: '', updatedAt: '', candidates: 4, progress: { total: 4, processed: 1 } };
      const done = {
        ...running,
        status: 'succeeded' as const,
        progress: { total: 4, processed: 4 },
        summary: { transitioned: 3, faulted: 1, noTransition: 0 },
        instances: [{ instanceId: 'c1', outcome: 'faulted', error: 'boom', trace: [{ path: 'states.a.transitions[0].actions[0]', type: 'setContext', result: 'error' as const, detail: 'boom' }] }],
      };
      const getOperation = jest.fn().mockResolvedValueOnce(running).mockResolvedValue(done);
      renderWith(fakeApi({ getOperation }), <OperationPage operationId="op-7" />);
      expect((await screen.findByText('1 of 4 candidates processed')).textContent).toBeTruthy();
      expect(screen.queryByTestId('outcomes')).toBeNull();
      await jest.advanceTimersByTimeAsync(1000);
      await screen.findByTestId('outcomes');
      expect(screen.getByText('4 of 4 candidates processed')).toBeTruthy();
      expect(screen.getByLabelText('Summary').textContent).toBe('transitioned3faulted1');
      expect(screen.getByTestId('outcomes').textContent).toContain('setContext: error boom');
      await jest.advanceTimersByTimeAsync(5000);
      expect(getOperation).toHaveBeenCalledTimes(2);
    } finally {
      jest.useRealTimers();
    }
  });

  it('shows progress before every candidate is known, then processed of candidates from the finished summary', async () => {
    jest.useFakeTimers();
    try {
      const base = { id: 'op-8', kind: 'trigger' as const, triggerId: 'op-8', createdAt: '', updatedAt: '' };
      const finding = { ...base, status: 'running' as const, candidates: 0, progress: { processed: 2 } };
      const counted = { ...base, status: 'running' as const, candidates: 0, progress: { total: 5, processed: 3 } };
      const done = {
        ...base,
        status: 'succeeded' as const,
        candidates: 5,
        summary: { transitioned: 4, notActive: 1 },
        instances: [
          {
            instanceId: 'c1',
            outcome: 'transitioned',
            transitionId: 'approve',
            fromStateId: 'a',
            toStateId: 'b',
            trace: [{ path: 'states.a.transitions[0].conditions[0]', type: 'triggerName', result: true }],
          },
        ],
        tracesTruncated: true,
        instancesTruncated: true,
      };
      const getOperation = jest.fn().mockResolvedValueOnce(finding).mockResolvedValueOnce(counted).mockResolvedValue(done);
      renderWith(fakeApi({ getOperation }), <OperationPage operationId="op-8" />);
      expect((await screen.findByText('2 processed so far, candidates still being found')).textContent).toBeTruthy();
      const bar = screen.getByLabelText('2 processed so far, candidates still being found') as HTMLProgressElement;
      // An indeterminate bar: no value while the total is unknown.
      expect(bar.hasAttribute('value')).toBe(false);
      await jest.advanceTimersByTimeAsync(1000);
      const counting = (await screen.findByLabelText('3 of 5 candidates processed')) as HTMLProgressElement;
      expect([counting.value, counting.max]).toEqual([3, 5]);
      await jest.advanceTimersByTimeAsync(1000);
      await screen.findByTestId('outcomes');
      expect(screen.getByTestId('progress').textContent).toContain('5 of 5 candidates processed');
      expect(screen.getByTestId('operation-kind').textContent).toBe('Dispatch of trigger op-8');
      expect(screen.getByText('Only the first 100 results keep their trace.')).toBeTruthy();
      expect(screen.getByText('Only the first results are listed; the summary counts them all.')).toBeTruthy();
      // Each trace is folded away until asked for.
      const trace = within(screen.getByTestId('outcomes')).getByText('Trace (1)').closest('details')!;
      expect(trace.open).toBe(false);
      expect(trace.textContent).toContain('triggerName: held');
    } finally {
      jest.useRealTimers();
    }
  });

  it('names a migration and a bulk action for what they do', async () => {
    const migration = {
      id: 'op-m',
      kind: 'migration' as const,
      migration: { workflowId: 'order', fromVersion: 1, toVersion: 2, stateMap: {} },
      status: 'succeeded' as const,
      createdAt: '',
      updatedAt: '',
      candidates: 0,
      summary: { migrated: 0 },
      instances: [],
    };
    renderWith(fakeApi({ getOperation: jest.fn(async () => migration) }), <OperationPage operationId="op-m" />);
    expect((await screen.findByTestId('operation-kind')).textContent).toBe('Migration of order from v1 to v2');
    expect(screen.getByText('No instance matched.')).toBeTruthy();
  });
});

describe('InstancePage, wave 2', () => {
  it('lists the armed timers with their transition, target, definition and due time (relative and absolute)', async () => {
    const dueAt = new Date(Date.now() + 2 * 3_600_000 + 60_000).toISOString();
    const waiting = instance({ timers: [{ transitionId: 'remind', dueAt }] });
    const withTimer = {
      ...workflow,
      states: {
        ...workflow.states,
        draft: { ...workflow.states.draft!, transitions: [...workflow.states.draft!.transitions!, { id: 'remind', targetStateId: 'submitted', timer: { after: 'PT2H', calendar: 'office' } }] },
      },
    };
    renderWith(fakeApi({ getInstance: jest.fn(async () => waiting), getWorkflow: jest.fn(async () => withTimer) }), <InstancePage instanceId="claim-1" />);
    const timers = await screen.findByTestId('timers');
    await waitFor(() => expect(timers.textContent).toContain('after PT2H (office calendar)'));
    const row = within(timers).getByRole('row', { name: /remind/ });
    expect(row.textContent).toContain('submitted');
    expect(row.textContent).toContain(new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' }).format(2, 'hour'));
    expect(row.querySelector('time')!.getAttribute('datetime')).toBe(dueAt);
  });

  it('describes the parameter tests an available trigger makes, negations and alternatives included', async () => {
    const getAvailableTriggers = jest.fn(async () => ({
      status: 'waiting' as const,
      items: [
        {
          transitionId: 'submit',
          triggerNames: ['Submit'],
          parameters: [
            { name: 'amount', test: 'exists' },
            { name: 'kind', test: 'equals', value: 'taxi', negated: true },
            { name: 'urgent', test: 'equals', value: true, alternative: true },
          ],
          targetStateId: 'submitted',
        },
      ],
    }));
    renderWith(fakeApi({ getAvailableTriggers }), <InstancePage instanceId="claim-1" />);
    expect((await screen.findByTestId('available-triggers')).textContent).toContain(
      'Submit takes submit to submitted (parameters: amount exists, not kind equals "taxi", urgent equals true (one of several))',
    );
  });

  it('says when no timer is armed', async () => {
    renderWith(fakeApi({ getInstance: jest.fn(async () => instance({ timers: [] })) }), <InstancePage instanceId="claim-1" />);
    expect((await screen.findByText('No timer is armed in this state.')).textContent).toBeTruthy();
  });

  it('shows everything a dry run would do: trace, actions, raised triggers, events and the context after', async () => {
    const dryRunInstanceTrigger = jest.fn(async (instanceId: string) => ({
      truncated: false,
      instances: [
        {
          instanceId,
          outcome: 'transitioned',
          transitionId: 'submit',
          fromStateId: 'draft',
          toStateId: 'submitted',
          trace: [
            { path: 'states.draft.transitions[0].conditions[0]', type: 'triggerName', result: true },
            { path: 'states.draft.transitions[0].conditions[1]', type: 'expression', result: false, detail: 'amount > 100 was false' },
          ],
          contextAfter: { submittedAt: '2026-11-23' },
          events: [{ type: 'transitioned', subscriptionIds: ['audit'], data: {} }],
          raisedTriggers: [{ name: 'Review', subjects: ['approvers'] }],
          actions: [
            { step: 'states.draft.transitions[0].actions[0]', type: 'invokeExternalService', request: { method: 'POST', url: 'https://example.test/hook' } },
            { step: 'states.draft.transitions[0].actions[1]', type: 'raiseTrigger', trigger: { name: 'Review', subjects: ['approvers'] } },
          ],
        },
      ],
    }));
    const api = fakeApi({ dryRunInstanceTrigger });
    renderWith(api, <InstancePage instanceId="claim-1" />);
    await waitFor(() => expect((screen.getByLabelText('Trigger name') as HTMLInputElement).value).toBe('Submit'));
    fireEvent.click(screen.getByRole('button', { name: 'Dry run' }));
    const preview = await screen.findByTestId('dry-run');
    expect(preview.textContent).toContain('Would take submit from draft to submitted.');
    expect(preview.textContent).toContain('expression: did not hold amount > 100 was false');
    expect(preview.textContent).toContain('invokeExternalService POST https://example.test/hook');
    expect(preview.textContent).toContain('raise Review to approvers');
    expect(within(preview).getByRole('heading', { name: 'Lifecycle events it would publish' })).toBeTruthy();
    expect(preview.textContent).toContain('transitioned to audit');
    expect(preview.textContent).toContain('submittedAt');
    expect(api.sendInstanceTrigger).not.toHaveBeenCalled();
  });

  it('shows why a dry run would fault', async () => {
    const dryRunInstanceTrigger = jest.fn(async (instanceId: string) => ({
      truncated: false,
      instances: [{ instanceId, outcome: 'faulted', transitionId: 'submit', error: 'Unable to cast value to a number', trace: [], contextAfter: {}, events: [], raisedTriggers: [], actions: [] }],
    }));
    renderWith(fakeApi({ dryRunInstanceTrigger }), <InstancePage instanceId="claim-1" />);
    await waitFor(() => expect((screen.getByLabelText('Trigger name') as HTMLInputElement).value).toBe('Submit'));
    fireEvent.click(screen.getByRole('button', { name: 'Dry run' }));
    expect((await screen.findByTestId('dry-run-error')).textContent).toBe('Unable to cast value to a number');
    expect(screen.getByTestId('dry-run').textContent).toContain('Dry run: faulted');
  });

  it('suspends a waiting instance only after a confirmation, moving focus to the safe choice and back', async () => {
    const getInstance = jest
      .fn()
      .mockResolvedValueOnce(instance())
      .mockResolvedValue(instance({ status: 'suspended' }));
    const api = fakeApi({ getInstance });
    renderWith(api, <InstancePage instanceId="claim-1" />);
    const open = await screen.findByRole('button', { name: 'Suspend instance…' });
    fireEvent.click(open);
    const keep = screen.getByRole('button', { name: 'Keep it running' });
    await waitFor(() => expect(document.activeElement).toBe(keep));
    fireEvent.click(keep);
    await waitFor(() => expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Suspend instance…' })));
    expect(api.suspendInstance).not.toHaveBeenCalled();

    fireEvent.click(screen.getByRole('button', { name: 'Suspend instance…' }));
    fireEvent.click(screen.getByRole('button', { name: 'Yes, suspend it' }));
    await waitFor(() => expect(api.suspendInstance).toHaveBeenCalledWith('claim-1'));
    expect((await screen.findByText('A suspended instance takes no triggers until it is resumed.')).textContent).toBeTruthy();
    expect(screen.queryByLabelText('Trigger name')).toBeNull();
    expect(screen.getByRole('button', { name: 'Resume instance…' })).toBeTruthy();
  });

  it('resumes a suspended instance after a confirmation, and shows the problem when the API refuses', async () => {
    const resumeInstance = jest
      .fn()
      .mockRejectedValueOnce(new ApiError({ title: 'Conflict', status: 409, detail: 'The instance is not suspended' }))
      .mockResolvedValue(instance());
    const api = fakeApi({ getInstance: jest.fn(async () => instance({ status: 'suspended' })), resumeInstance });
    renderWith(api, <InstancePage instanceId="claim-1" />);
    fireEvent.click(await screen.findByRole('button', { name: 'Resume instance…' }));
    fireEvent.click(screen.getByRole('button', { name: 'Yes, resume it' }));
    expect((await screen.findByRole('alert')).textContent).toContain('The instance is not suspended');
    fireEvent.click(screen.getByRole('button', { name: 'Yes, resume it' }));
    await waitFor(() => expect(resumeInstance).toHaveBeenCalledTimes(2));
    await waitFor(() => expect(screen.queryByRole('alert')).toBeNull());
  });

  it('lists the lifecycle events with each delivery', async () => {
    const getEvents = jest.fn(async () => ({
      items: [
        { id: 'claim-1:1:created', type: 'created', time: '2026-11-23T10:00:00.000Z', deliveries: [{ subscriptionId: 'audit', status: 'delivered', attempts: 1 }] },
        {
          id: 'claim-1:2:transitioned',
          type: 'transitioned',
          time: '2026-11-23T10:01:00.000Z',
          deliveries: [{ subscriptionId: 'audit', status: 'deadLettered', attempts: 8, lastError: '503 from the sink' }],
        },
      ],
    }));
    renderWith(fakeApi({ getEvents }), <InstancePage instanceId="claim-1" />);
    const table = await screen.findByTestId('lifecycle-events');
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows.map((row) => row.querySelector('strong')!.textContent)).toEqual(['created', 'transitioned']);
    expect(rows[1]!.textContent).toContain('deadLettered');
    expect(rows[1]!.textContent).toContain('8 attempts');
    expect(rows[1]!.textContent).toContain('503 from the sink');
  });

  it('delivers a dead-lettered event again, and reads the events afresh', async () => {
    const deadLettered = { id: 'claim-1:2:transitioned', type: 'transitioned', time: '2026-11-23T10:01:00.000Z', deliveries: [{ subscriptionId: 'audit', status: 'deadLettered', attempts: 8 }] };
    const pending = { ...deadLettered, deliveries: [{ subscriptionId: 'audit', status: 'pending', attempts: 0 }] };
    const getEvents = jest
      .fn()
      .mockResolvedValueOnce({ items: [deadLettered] })
      .mockResolvedValue({ items: [pending] });
    const api = fakeApi({ getEvents });
    renderWith(api, <InstancePage instanceId="claim-1" />);
    fireEvent.click(await screen.findByRole('button', { name: 'Deliver claim-1:2:transitioned again' }));
    await waitFor(() => expect(api.redeliverEvent).toHaveBeenCalledWith('claim-1', 'claim-1:2:transitioned'));
    await waitFor(() => expect(screen.getByTestId('lifecycle-events').textContent).toContain('pending'));
    expect(screen.queryByRole('button', { name: /Deliver .* again/ })).toBeNull();
  });

  it('links a child to its parent, and a workflow that starts children to them', async () => {
    const starting = {
      ...workflow,
      states: { ...workflow.states, draft: { transitions: [{ id: 'submit', targetStateId: 'submitted', actions: [{ type: 'startInstance', workflowId: 'review' }] }] } },
    };
    renderWith(fakeApi({ getInstance: jest.fn(async () => instance({ parent: { instanceId: 'order-9' } })), getWorkflow: jest.fn(async () => starting) }), <InstancePage instanceId="claim-1" />);
    expect((await screen.findByRole('link', { name: 'order-9' })).getAttribute('href')).toBe('#/instances/order-9');
    expect((await screen.findByRole('link', { name: 'Instances it started' })).getAttribute('href')).toBe('#/instances?parentId=claim-1');
  });
});
