/**
 * @jest-environment jsdom
 * @jest-environment-options {"customExportConditions": ["require", "default"]}
 */
/**
 * What a person does from the console beyond reading: go to an instance by its id, sort and count a
 * filtered list, act on all of it after a dry-run count, read a workflow's definition, start an instance
 * and send a trigger with each invalid field named beside it.
 */
import { configure, fireEvent, render, screen, waitFor, within } from '@testing-library/preact';
import type { ComponentChildren } from 'preact';
import { ApiContext } from '../../console/src/api-context';
import { ApiError } from '../../console/src/api/api-error';
import type { ConsoleApi } from '../../console/src/api/console-api';
import { App } from '../../console/src/app';
import { InstancePage } from '../../console/src/pages/instance-page';
import { InstancesPage } from '../../console/src/pages/instances-page';
import { WorkflowPage } from '../../console/src/pages/workflow-page';
import { fakeApi, instance, type FakeApi } from './support/fake-api';

jest.mock('../../console/src/lib/render-mermaid', () => ({
  renderMermaid: async (text: string) => `<svg><desc>${text.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</desc></svg>`,
}));

configure({ asyncUtilTimeout: 10_000 });

function renderWith(api: FakeApi, children: ComponentChildren) {
  return render(<ApiContext.Provider value={api as unknown as ConsoleApi}>{children}</ApiContext.Provider>);
}

const notFound = (what: string) =>
  jest.fn(async () => {
    throw new ApiError({ title: 'Not Found', status: 404, detail: `${what} does not exist` });
  });

afterEach(() => {
  window.location.hash = '';
});

describe('going to an instance by its id', () => {
  it('goes straight to the instance page from the header box', async () => {
    const api = fakeApi();
    render(<App createApi={() => api as unknown as ConsoleApi} />);
    fireEvent.input(screen.getByLabelText('Instance id'), { target: { value: '  claim 42 ' } });
    fireEvent.submit(screen.getByRole('search', { name: 'Go to an instance' }));
    await waitFor(() => expect(window.location.hash).toBe('#/instances/claim%2042'));
  });

  it('says plainly that no instance has that id', async () => {
    renderWith(fakeApi({ getInstance: notFound('Instance "nope"') }), <InstancePage instanceId="nope" />);
    expect((await screen.findByText('No instance has the id nope')).textContent).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Go to the instance list' }).getAttribute('href')).toBe('#/instances');
  });
});

describe('sorting and counting the instance list', () => {
  const at = (minute: number) => `2026-11-23T10:${String(minute).padStart(2, '0')}:00.000Z`;

  it('reads the whole filtered list, counts it and shows the most recently updated first', async () => {
    const listInstances = jest.fn(async (_filter: unknown, token?: string) =>
      token
        ? { items: [instance({ id: 'c', updatedAt: at(30), stateId: 'submitted' })] }
        : { items: [instance({ id: 'a', updatedAt: at(10) }), instance({ id: 'b', updatedAt: at(50), status: 'faulted' })], continuationToken: 'next' },
    );
    renderWith(fakeApi({ listInstances }), <InstancesPage filter={{ workflowId: 'expense-claim' }} />);
    expect((await screen.findByTestId('instance-count')).textContent).toBe('3 instances match');
    const ids = () =>
      within(screen.getByTestId('instances'))
        .getAllByRole('row')
        .slice(1)
        .map((row) => row.querySelector('td')!.textContent);
    expect(ids()).toEqual(['b', 'c', 'a']);
    expect(listInstances).toHaveBeenCalledWith({ workflowId: 'expense-claim' }, undefined, 1000);
    expect(listInstances).toHaveBeenCalledWith({ workflowId: 'expense-claim' }, 'next', 1000);
    expect(screen.getByRole('columnheader', { name: /Updated/ }).getAttribute('aria-sort')).toBe('descending');

    fireEvent.click(screen.getByRole('button', { name: 'Sort by Instance' }));
    await waitFor(() => expect(window.location.hash).toBe('#/instances?workflowId=expense-claim&sort=id'));
  });

  it('sorts by the column the route names, and the other way on a second click', async () => {
    const listInstances = jest.fn(async () => ({ items: [instance({ id: 'b' }), instance({ id: 'c' }), instance({ id: 'a' })] }));
    renderWith(fakeApi({ listInstances }), <InstancesPage filter={{}} sort={{ key: 'id', descending: false }} />);
    await screen.findByTestId('instances');
    const ids = within(screen.getByTestId('instances'))
      .getAllByRole('row')
      .slice(1)
      .map((row) => row.querySelector('td')!.textContent);
    expect(ids).toEqual(['a', 'b', 'c']);
    fireEvent.click(screen.getByRole('button', { name: 'Sort by Instance' }));
    await waitFor(() => expect(window.location.hash).toBe('#/instances?sort=-id'));
  });

  it('says honestly when there are more than it read, and sorts only what it read', async () => {
    const listInstances = jest.fn(async (_filter: unknown, token?: string) => ({
      items: Array.from({ length: 1000 }, (_, index) => instance({ id: `i-${token ?? 0}-${index}` })),
      continuationToken: String(Number(token ?? 0) + 1),
    }));
    renderWith(fakeApi({ listInstances }), <InstancesPage filter={{}} />);
    expect((await screen.findByTestId('instance-count')).textContent).toBe('5,000+ instances match');
    expect(screen.getByText(/Sorted among the first 5,000 read/)).toBeTruthy();
    expect(listInstances).toHaveBeenCalledTimes(5);
    // 50 rows a page, paged in the browser.
    expect(within(screen.getByTestId('instances')).getAllByRole('row')).toHaveLength(51);
    expect(screen.getByText('Page 1 of 100')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Next page' }));
    expect(screen.getByText('Page 2 of 100')).toBeTruthy();
  });
});

describe('bulk actions on a filtered list', () => {
  const matching = [instance({ id: 'w-1' }), instance({ id: 'w-2' }), instance({ id: 'f-1', status: 'faulted' }), instance({ id: 'd-1', status: 'complete' })];

  it('counts what the action would change first, then sends it with the filter after a confirmation naming the count', async () => {
    const bulkInstances = jest.fn(async () => ({ operationId: 'bulk-1', status: 'notStarted', statusUrl: '/api/operations/bulk-1' }));
    const api = fakeApi({ listInstances: jest.fn(async () => ({ items: matching })), bulkInstances });
    renderWith(api, <InstancesPage filter={{ workflowId: 'expense-claim', stateId: 'draft' }} />);
    const panel = await screen.findByRole('form', { name: 'Act on every instance that matches' });
    fireEvent.change(within(panel).getByLabelText('Action'), { target: { value: 'cancel' } });
    fireEvent.click(within(panel).getByRole('button', { name: 'Dry run: count them' }));
    const count = await within(panel).findByTestId('bulk-count');
    expect(count.textContent).toBe('4 instances match: 2 waiting, 1 faulted, 1 complete. Cancel would change 3; 1 would be reported as a conflict.');
    expect(bulkInstances).not.toHaveBeenCalled();

    fireEvent.click(within(panel).getByRole('button', { name: 'Cancel 3 instances…' }));
    fireEvent.click(within(panel).getByRole('button', { name: 'Yes, cancel 3 instances' }));
    await waitFor(() => expect(bulkInstances).toHaveBeenCalledWith({ action: 'cancel', filter: { workflowId: 'expense-claim', stateId: 'draft' } }));
    await waitFor(() => expect(window.location.hash).toBe('#/operations/bulk-1'));
  });

  it('asks for a new count when the action changes, and the state to recover into', async () => {
    const api = fakeApi({ listInstances: jest.fn(async () => ({ items: matching })) });
    renderWith(api, <InstancesPage filter={{ workflowId: 'expense-claim' }} />);
    const panel = await screen.findByRole('form', { name: 'Act on every instance that matches' });
    fireEvent.change(within(panel).getByLabelText('Action'), { target: { value: 'suspend' } });
    fireEvent.click(within(panel).getByRole('button', { name: 'Dry run: count them' }));
    await within(panel).findByTestId('bulk-count');
    fireEvent.change(within(panel).getByLabelText('Action'), { target: { value: 'recover' } });
    expect(within(panel).queryByTestId('bulk-count')).toBeNull();
    await waitFor(() => expect((within(panel).getByLabelText('Recover into state') as HTMLSelectElement).options.length).toBe(3));
  });

  it('is offered only once a workflow is chosen, as the bulk route requires', async () => {
    renderWith(fakeApi(), <InstancesPage filter={{ status: 'faulted' }} />);
    await screen.findByTestId('instances');
    expect(screen.queryByRole('form', { name: 'Act on every instance that matches' })).toBeNull();
    expect(screen.getByText('Choose a workflow to act on every instance that matches.')).toBeTruthy();
  });
});

describe('the workflow definition and starting an instance', () => {
  it('shows the definition of the version shown as JSON', async () => {
    renderWith(fakeApi(), <WorkflowPage workflowId="expense-claim" />);
    const definition = await screen.findByTestId('definition-json');
    expect(JSON.parse(definition.textContent!)).toMatchObject({ id: 'expense-claim', initialStateId: 'draft', version: 2 });
  });

  it('names an invalid context beside its field without calling the API', async () => {
    const api = fakeApi({ createInstance: jest.fn() });
    renderWith(api, <WorkflowPage workflowId="expense-claim" />);
    const form = await screen.findByRole('form', { name: 'Start an instance' });
    fireEvent.input(within(form).getByLabelText('Context (JSON object, optional)'), { target: { value: '{"amount": ' } });
    fireEvent.click(within(form).getByRole('button', { name: 'Start instance' }));
    const field = within(form).getByLabelText('Context (JSON object, optional)');
    await waitFor(() => expect(field.getAttribute('aria-invalid')).toBe('true'));
    expect(document.getElementById(field.getAttribute('aria-describedby')!)!.textContent).toMatch(/^Not valid JSON/);
    expect(api.createInstance).not.toHaveBeenCalled();
  });

  it('puts each invalid field of the problem+json beside its field, and opens the instance it started', async () => {
    const createInstance = jest
      .fn()
      .mockRejectedValueOnce(
        new ApiError({
          title: 'Invalid request',
          status: 400,
          detail: 'The instance request is invalid',
          errors: [{ path: 'instanceId', message: 'Too big: expected string to have <=128 characters' }],
        }),
      )
      .mockResolvedValueOnce(instance({ id: 'claim-9' }));
    const api = fakeApi({ createInstance });
    renderWith(api, <WorkflowPage workflowId="expense-claim" />);
    const form = await screen.findByRole('form', { name: 'Start an instance' });
    fireEvent.input(within(form).getByLabelText('Instance id (optional)'), { target: { value: 'x'.repeat(129) } });
    fireEvent.input(within(form).getByLabelText('Context (JSON object, optional)'), { target: { value: '{"claimantId": "ann"}' } });
    fireEvent.click(within(form).getByRole('button', { name: 'Start instance' }));
    const idField = within(form).getByLabelText('Instance id (optional)');
    await waitFor(() => expect(idField.getAttribute('aria-invalid')).toBe('true'));
    expect(document.getElementById(idField.getAttribute('aria-describedby')!)!.textContent).toBe('Too big: expected string to have <=128 characters');
    expect(createInstance).toHaveBeenCalledWith({ workflowId: 'expense-claim', instanceId: 'x'.repeat(129), context: { claimantId: 'ann' } });

    fireEvent.input(idField, { target: { value: 'claim-9' } });
    fireEvent.click(within(form).getByRole('button', { name: 'Start instance' }));
    await waitFor(() => expect(window.location.hash).toBe('#/instances/claim-9'));
  });

  it('puts a taken instance id (409) beside the id field', async () => {
    const createInstance = jest.fn(async () => {
      throw new ApiError({ title: 'Conflict', status: 409, detail: 'Instance "claim-1" already exists' });
    });
    renderWith(fakeApi({ createInstance }), <WorkflowPage workflowId="expense-claim" />);
    const form = await screen.findByRole('form', { name: 'Start an instance' });
    fireEvent.input(within(form).getByLabelText('Instance id (optional)'), { target: { value: 'claim-1' } });
    fireEvent.click(within(form).getByRole('button', { name: 'Start instance' }));
    const idField = within(form).getByLabelText('Instance id (optional)');
    await waitFor(() => expect(idField.getAttribute('aria-invalid')).toBe('true'));
    expect(document.getElementById(idField.getAttribute('aria-describedby')!)!.textContent).toBe('Instance "claim-1" already exists');
  });
});

describe('sending a trigger', () => {
  it('puts each invalid field of the problem+json beside its field', async () => {
    const api = fakeApi({
      dryRunInstanceTrigger: jest.fn(async () => {
        throw new ApiError({ title: 'Invalid request', status: 400, detail: 'The trigger is invalid', errors: [{ path: 'contentType', message: 'Invalid string' }] });
      }),
    });
    renderWith(api, <InstancePage instanceId="claim-1" />);
    const form = await screen.findByRole('form', { name: 'Send a trigger' });
    await waitFor(() => expect((within(form).getByLabelText('Trigger name') as HTMLInputElement).value).toBe('Submit'));
    fireEvent.input(within(form).getByLabelText('Content type (optional)'), { target: { value: '???' } });
    fireEvent.click(within(form).getByRole('button', { name: 'Dry run' }));
    const field = within(form).getByLabelText('Content type (optional)');
    await waitFor(() => expect(field.getAttribute('aria-invalid')).toBe('true'));
    expect(document.getElementById(field.getAttribute('aria-describedby')!)!.textContent).toBe('Invalid string');
  });

  it('names a missing trigger name beside its field', async () => {
    const api = fakeApi();
    renderWith(api, <InstancePage instanceId="claim-1" />);
    const form = await screen.findByRole('form', { name: 'Send a trigger' });
    await waitFor(() => expect((within(form).getByLabelText('Trigger name') as HTMLInputElement).value).toBe('Submit'));
    fireEvent.input(within(form).getByLabelText('Trigger name'), { target: { value: ' ' } });
    fireEvent.click(within(form).getByRole('button', { name: 'Dry run' }));
    const field = within(form).getByLabelText('Trigger name');
    await waitFor(() => expect(field.getAttribute('aria-invalid')).toBe('true'));
    expect(document.getElementById(field.getAttribute('aria-describedby')!)!.textContent).toBe('A trigger name is required');
    expect(api.dryRunInstanceTrigger).not.toHaveBeenCalled();
  });
});
