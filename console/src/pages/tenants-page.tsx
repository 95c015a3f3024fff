/**
 * @module Tenant administration (Signalbox.TenantAdmin): every tenant, a form to create one (answered when
 * its storage is ready) and a confirmed delete. A deletion runs in the background (202): the page polls the
 * list until the tenant is gone from it, since only then has the check proved that nothing of it is left
 * (the list rather than GET /api/tenants/{tenantId}, whose final 404 a browser reports as an error).
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { useApi } from '../api-context';
import { asProblem } from '../api/api-error';
import type { ClientProblem, Tenant } from '../../../src/client';
import { ConfirmedAction } from '../components/confirmed-action';
import { FieldError, invalidProps } from '../components/field-error';
import { ProblemAlert } from '../components/problem-alert';
import { TimeText } from '../components/time-text';
import { isTenantId } from '../lib/tenant-store';
import { useAsync } from '../lib/use-async';

/** Between reads of a tenant being deleted: deleting takes seconds on Azurite, longer on a large tenant. */
const DELETION_POLL_MS = 500;

export function TenantsPage({ onTenantsChanged }: { onTenantsChanged: () => void }) {
  const api = useApi();
  const tenants = useAsync(() => api.listTenants(), [api]);
  const [newId, setNewId] = useState('');
  const [connectionSetting, setConnectionSetting] = useState('');
  const [idError, setIdError] = useState<string>();
  const [creating, setCreating] = useState(false);
  const [problem, setProblem] = useState<ClientProblem>();
  const [deleting, setDeleting] = useState<readonly string[]>([]);
  const [status, setStatus] = useState('');
  const mounted = useRef(true);
  useEffect(
    () => () => {
      mounted.current = false;
    },
    [],
  );

  const create = async () => {
    const tenantId = newId.trim();
    setProblem(undefined);
    if (!isTenantId(tenantId)) {
      setIdError('A tenant id is 3-63 lowercase letters, digits and hyphens.');
      return;
    }
    setIdError(undefined);
    setCreating(true);
    try {
      const setting = connectionSetting.trim();
      const created = await api.createTenant(tenantId, setting ? { storage: { connectionSetting: setting } } : {});
      setNewId('');
      setConnectionSetting('');
      setStatus(`Tenant ${created.id} is ready.`);
      tenants.reload();
      onTenantsChanged();
    } catch (error) {
      setProblem(asProblem(error));
    } finally {
      setCreating(false);
    }
  };

  const remove = async (tenantId: string) => {
    await api.deleteTenant(tenantId);
    setDeleting((ids) => [...ids, tenantId]);
    setStatus(`Deleting tenant ${tenantId}…`);
    onTenantsChanged();
    // The page may be left while this runs; the deletion goes on on the server regardless.
    void (async () => {
      try {
        for (;;) {
          const tenant = (await api.listTenants()).items.find((each) => each.id === tenantId);
          if (!tenant) break;
          if (tenant.deletion?.status === 'failed') throw new Error(`Deleting tenant ${tenantId} failed: ${tenant.deletion.failure ?? 'see the server log'}`);
          await new Promise((resolve) => setTimeout(resolve, DELETION_POLL_MS));
          if (!mounted.current) return;
        }
        if (!mounted.current) return;
        setStatus(`Tenant ${tenantId} deleted: nothing of it is left.`);
      } catch (error) {
        if (mounted.current) setProblem(asProblem(error));
      }
      if (!mounted.current) return;
      setDeleting((ids) => ids.filter((id) => id !== tenantId));
      tenants.reload();
    })();
  };

  const rows: Tenant[] = tenants.data?.items ?? [];
  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title" tabIndex={-1}>
        Tenants
      </h1>
      <p class="muted">Each tenant's workflows, instances and operations live in storage of its own. Pick the tenant to work in at the top of the page.</p>
      <p aria-live="polite" class="status">
        {status}
      </p>
      {tenants.problem && <ProblemAlert problem={tenants.problem} context="Listing tenants failed" />}
      {tenants.loading && !tenants.data && <p aria-live="polite">Loading tenants…</p>}
      <form
        class="tenant-form"
        aria-label="Create a tenant"
        onSubmit={(event) => {
          event.preventDefault();
          void create();
        }}
      >
        <label for="new-tenant-id">New tenant id</label>
        <input id="new-tenant-id" value={newId} onInput={(event) => setNewId(event.currentTarget.value)} autoComplete="off" spellcheck={false} {...invalidProps('new-tenant-id', idError)} />
        <FieldError id="new-tenant-id" error={idError} />
        <label for="new-tenant-connection-setting">Own storage account: app setting (optional)</label>
        <input
          id="new-tenant-connection-setting"
          value={connectionSetting}
          onInput={(event) => setConnectionSetting(event.currentTarget.value)}
          placeholder="SIGNALBOX_TENANT_STORAGE_<NAME>"
          aria-describedby="new-tenant-connection-setting-hint"
          autoComplete="off"
          spellcheck={false}
        />
        <p id="new-tenant-connection-setting-hint" class="muted">
          The app setting holding the account's connection string. Empty: the deployment's account, under names of the tenant's own.
        </p>
        <button type="submit" disabled={creating}>
          {creating ? 'Creating…' : 'Create tenant'}
        </button>
        {problem && <ProblemAlert problem={problem} context="The tenant" />}
      </form>
      {tenants.data && (
        <table>
          <caption class="visually-hidden">Tenants</caption>
          <thead>
            <tr>
              <th scope="col">Tenant</th>
              <th scope="col">Created</th>
              <th scope="col">Storage</th>
              <th scope="col">State</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((tenant) => {
              const beingDeleted = deleting.includes(tenant.id) || tenant.deletion?.status === 'running';
              return (
                <tr key={tenant.id}>
                  <td>{tenant.id}</td>
                  <td>
                    {/* The default tenant was never created: the registry dates it at the epoch. */}
                    {Date.parse(tenant.createdAt) > 0 ? <TimeText value={tenant.createdAt} /> : <span class="muted">–</span>}
                  </td>
                  <td>{storageOf(tenant)}</td>
                  <td>{beingDeleted ? 'Deleting…' : tenant.deletion?.status === 'failed' ? 'Deletion failed' : tenant.id === 'default' ? 'Default' : 'Ready'}</td>
                  <td>
                    {tenant.id !== 'default' && !beingDeleted && (
                      <ConfirmedAction
                        label={`Delete ${tenant.id}…`}
                        question={`Delete ${tenant.id}? Every workflow, instance and operation of it is removed.`}
                        confirmLabel={`Confirm deleting ${tenant.id}`}
                        yesLabel={`Delete ${tenant.id}`}
                        noLabel="Keep it"
                        tone="danger"
                        failureContext={`Deleting ${tenant.id} failed`}
                        run={() => remove(tenant.id)}
                        onDone={() => undefined}
                      />
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </section>
  );
}

/** Where the tenant's data lives, as the list shows it: the setting's name or the endpoint, never a secret (the record holds none). */
function storageOf(tenant: Tenant): string {
  if (!tenant.storage) return "Deployment's account";
  return 'connectionSetting' in tenant.storage ? `Own account (${tenant.storage.connectionSetting})` : `Own account (${new URL(tenant.storage.tableServiceUri).host})`;
}
