/**
 * @jest-environment jsdom
 * @jest-environment-options {"customExportConditions": ["require", "default"]}
 */
/**
 * The console's tenants: the picker offers only the caller's tenants (GET /api/me), the choice builds the
 * client every page uses and survives a reload (the URL's `tenant`, else local storage), and a caller with
 * Signalbox.TenantAdmin lists, creates and deletes tenants, a deletion polled until the tenant is gone.
 */
import { configure, fireEvent, render, screen, waitFor, within } from '@testing-library/preact';
import { ApiError } from '../../console/src/api/api-error';
import type { ConsoleApi } from '../../console/src/api/console-api';
import { App } from '../../console/src/app';
import { readTenant, TENANT_STORAGE_KEY } from '../../console/src/lib/tenant-store';
import { fakeApi, type FakeApi } from './support/fake-api';

configure({ asyncUtilTimeout: 10_000 });

const caller = (tenants: string[], roles = ['Signalbox.Admin']) => ({ id: 'api-key', name: 'API key', roles, via: 'key', tenants });
const tenant = (id: string) => ({ id, createdAt: '2026-11-26T15:00:00.000Z' });

function renderApp(api: FakeApi) {
  const createApi = jest.fn((_key: () => string | undefined, _token: () => string | undefined, _tenant?: string) => api as unknown as ConsoleApi);
  render(<App createApi={createApi} />);
  return createApi;
}

beforeEach(() => {
  localStorage.clear();
  window.history.replaceState(null, '', '/console/');
  window.location.hash = '';
});

describe('the tenant picker', () => {
  it("offers the caller's tenants only, and the choice scopes every call and is kept in the URL and local storage", async () => {
    const api = fakeApi({ whoAmI: jest.fn(async () => caller(['default', 'contoso'])) });
    const createApi = renderApp(api);
    const picker = (await screen.findByLabelText('Tenant')) as HTMLSelectElement;
    await waitFor(() => expect(Array.from(picker.options).map((option) => option.value)).toEqual(['default', 'contoso']));
    expect(picker.value).toBe('default');
    expect(createApi.mock.calls.at(-1)?.[2]).toBeUndefined();
    fireEvent.change(picker, { target: { value: 'contoso' } });
    await waitFor(() => expect(createApi.mock.calls.at(-1)?.[2]).toBe('contoso'));
    expect(new URLSearchParams(window.location.search).get('tenant')).toBe('contoso');
    expect(localStorage.getItem(TENANT_STORAGE_KEY)).toBe('contoso');
    fireEvent.change(screen.getByLabelText('Tenant'), { target: { value: 'default' } });
    await waitFor(() => expect(createApi.mock.calls.at(-1)?.[2]).toBeUndefined());
    expect(window.location.search).toBe('');
  });

  it('starts in the tenant the URL names, else the one kept in local storage', () => {
    localStorage.setItem(TENANT_STORAGE_KEY, 'fabrikam');
    expect(readTenant()).toBe('fabrikam');
    window.history.replaceState(null, '', '/console/?tenant=contoso');
    expect(readTenant()).toBe('contoso');
    window.history.replaceState(null, '', '/console/?tenant=Not_A_Tenant');
    expect(readTenant()).toBe('fabrikam');
  });

  it('goes back to the default tenant when the caller may not use the kept one', async () => {
    window.history.replaceState(null, '', '/console/?tenant=contoso');
    const api = fakeApi({ whoAmI: jest.fn(async () => caller(['default'])) });
    const createApi = renderApp(api);
    expect(createApi.mock.calls[0]?.[2]).toBe('contoso');
    await waitFor(() => expect(createApi.mock.calls.at(-1)?.[2]).toBeUndefined());
    expect(window.location.search).toBe('');
  });

  it('shows no picker to a caller with one tenant, and no Tenants section without Signalbox.TenantAdmin', async () => {
    const whoAmI = jest.fn(async () => caller(['default']));
    renderApp(fakeApi({ whoAmI }));
    await waitFor(() => expect(whoAmI).toHaveBeenCalled());
    expect(screen.queryByLabelText('Tenant')).toBeNull();
    expect(screen.queryByRole('link', { name: 'Tenants' })).toBeNull();
  });
});

describe('administering tenants', () => {
  it('lists, creates and deletes tenants, polling a deletion until the tenant is gone', async () => {
    let tenants: Array<ReturnType<typeof tenant> & { deletion?: unknown }> = [tenant('default'), tenant('contoso')];
    let readsWhileDeleting = 0;
    const api = fakeApi({
      whoAmI: jest.fn(async () =>
        caller(
          tenants.map((each) => each.id),
          ['Signalbox.Admin', 'Signalbox.TenantAdmin'],
        ),
      ),
      listTenants: jest.fn(async () => {
        if (tenants.some((each) => each.deletion)) {
          readsWhileDeleting += 1;
          // Listed with its deletion for a while, then gone.
          if (readsWhileDeleting === 3) tenants = tenants.filter((each) => !each.deletion);
        }
        return { items: tenants };
      }),
      createTenant: jest.fn(async (tenantId: string, input: { storage?: { connectionSetting: string } } = {}) => {
        const created = { ...tenant(tenantId), ...(input.storage ? { storage: input.storage } : {}) };
        tenants = [...tenants, created];
        return created;
      }),
      deleteTenant: jest.fn(async (tenantId: string) => {
        tenants = tenants.map((each) => (each.id === tenantId ? { ...each, deletion: { status: 'running', requestedAt: '2026-11-26T15:01:00.000Z' } } : each));
        return { id: `tenant-deletion:${tenantId}`, kind: 'tenantDeletion', tenantId, status: 'running', requestedAt: '2026-11-26T15:01:00.000Z' };
      }),
    });
    renderApp(api);
    fireEvent.click(await screen.findByRole('link', { name: 'Tenants' }));
    const table = await screen.findByRole('table', { name: 'Tenants' });
    await waitFor(() => expect(within(table).getAllByRole('row')).toHaveLength(3));
    expect(within(table).queryByRole('button', { name: 'Delete default…' })).toBeNull();

    fireEvent.input(screen.getByLabelText('New tenant id'), { target: { value: 'Bad Id' } });
    fireEvent.submit(screen.getByRole('form', { name: 'Create a tenant' }));
    expect((await screen.findByText(/3-63 lowercase letters, digits and hyphens/)).textContent).toBeTruthy();
    expect(api.createTenant).not.toHaveBeenCalled();

    fireEvent.input(screen.getByLabelText('New tenant id'), { target: { value: 'fabrikam' } });
    fireEvent.submit(screen.getByRole('form', { name: 'Create a tenant' }));
    await waitFor(() => expect(within(screen.getByRole('table', { name: 'Tenants' })).getByText('fabrikam')).toBeTruthy());
    expect(api.createTenant).toHaveBeenCalledWith('fabrikam', {});
    expect(within(screen.getByRole('row', { name: /^fabrikam / })).getByText("Deployment's account")).toBeTruthy();

    // Its own account, by the app setting holding the connection string: only the setting's name is sent and shown.
    fireEvent.input(screen.getByLabelText('New tenant id'), { target: { value: 'northwind' } });
    fireEvent.input(screen.getByLabelText('Own storage account: app setting (optional)'), { target: { value: ' SIGNALBOX_TENANT_STORAGE_NORTHWIND ' } });
    fireEvent.submit(screen.getByRole('form', { name: 'Create a tenant' }));
    await waitFor(() => expect(within(screen.getByRole('table', { name: 'Tenants' })).getByText('Own account (SIGNALBOX_TENANT_STORAGE_NORTHWIND)')).toBeTruthy());
    expect(api.createTenant).toHaveBeenLastCalledWith('northwind', { storage: { connectionSetting: 'SIGNALBOX_TENANT_STORAGE_NORTHWIND' } });
    expect((screen.getByLabelText('Own storage account: app setting (optional)') as HTMLInputElement).value).toBe('');
    await waitFor(() => expect(Array.from((screen.getByLabelText('Tenant') as HTMLSelectElement).options).map((option) => option.value)).toContain('fabrikam'));

    fireEvent.click(screen.getByRole('button', { name: 'Delete fabrikam…' }));
    fireEvent.click(screen.getByRole('button', { name: 'Delete fabrikam' }));
    await waitFor(() => expect(within(screen.getByRole('table', { name: 'Tenants' })).queryByText('fabrikam')).toBeNull(), { timeout: 20_000 });
    expect(api.deleteTenant).toHaveBeenCalledWith('fabrikam');
    expect(readsWhileDeleting).toBe(3);
    expect((await screen.findByText('Tenant fabrikam deleted: nothing of it is left.')).textContent).toBeTruthy();
  }, 30_000);

  it("shows the API's problem when creating fails", async () => {
    const api = fakeApi({
      whoAmI: jest.fn(async () => caller(['default'], ['Signalbox.TenantAdmin'])),
      listTenants: jest.fn(async () => ({ items: [tenant('default')] })),
      createTenant: jest.fn(async () => {
        throw new ApiError({ title: 'Forbidden', status: 403, detail: 'Signalbox.TenantAdmin is needed' });
      }),
    });
    window.location.hash = '#/tenants';
    renderApp(api);
    fireEvent.input(await screen.findByLabelText('New tenant id'), { target: { value: 'fabrikam' } });
    fireEvent.submit(screen.getByRole('form', { name: 'Create a tenant' }));
    expect((await screen.findByText('Signalbox.TenantAdmin is needed')).textContent).toBeTruthy();
  });
});
