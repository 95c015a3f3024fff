/**
 * @module The console's shell: header with navigation and who is signed in (or the API key), and the
 * page the hash names.
 * After every navigation the page's heading takes focus, so keyboard and screen-reader users land on it.
 */
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ApiContext } from './api-context';
import { TENANT_ADMIN_ROLE, type ConsoleApi } from './api/console-api';
import { InstanceSearch } from './components/instance-search';
import { Account } from './components/account';
import { Link } from './components/link';
import { parseHash, type ConsoleRoute } from './lib/hash-route';
import { InstancePage } from './pages/instance-page';
import { InstancesPage } from './pages/instances-page';
import { OperationPage } from './pages/operation-page';
import { OperationsPage } from './pages/operations-page';
import { WorkflowPage } from './pages/workflow-page';
import { WorkflowsPage } from './pages/workflows-page';
import { TenantsPage } from './pages/tenants-page';
import { TenantPicker } from './components/tenant-picker';
import { readTenant, writeTenant } from './lib/tenant-store';
import { useAsync } from './lib/use-async';
import { EmptyState } from './components/empty-state';
import type { SignedInUser } from './lib/sign-in';

function Page({ route, onTenantsChanged }: { route: ConsoleRoute; onTenantsChanged: () => void }) {
  switch (route.page) {
    case 'workflows':
      return <WorkflowsPage />;
    case 'workflow':
      return <WorkflowPage workflowId={route.workflowId} version={route.version} />;
    case 'instances':
      return <InstancesPage filter={route.filter} sort={route.sort} search={route.search} />;
    case 'instance':
      return <InstancePage instanceId={route.instanceId} />;
    case 'operations':
      return <OperationsPage filter={route.filter} sort={route.sort} />;
    case 'operation':
      return <OperationPage operationId={route.operationId} />;
    case 'tenants':
      return <TenantsPage onTenantsChanged={onTenantsChanged} />;
    case 'notFound':
      return (
        <section>
          <h1 id="page-title" tabIndex={-1}>
            Page not found
          </h1>
          <EmptyState title={`The console has no page ${route.path}`}>
            <Link to={{ page: 'workflows' }}>Go to the workflows</Link>
          </EmptyState>
        </section>
      );
  }
}

export interface AppProps {
  /** Builds the client for a key or an access token and a tenant (undefined: the default); called again when any changes. */
  createApi: (apiKey: () => string | undefined, accessToken: () => string | undefined, tenant?: string) => ConsoleApi;
  initialApiKey?: string;
  onApiKeyChange?: (key: string | undefined) => void;
  /** The user signed in in this tab, if any. */
  initialUser?: SignedInUser;
  /** Sends the browser to sign in, coming back to `returnTo`; absent when the server names no authority. */
  onSignIn?: (returnTo: string) => void;
  /** Forgets the signed-in user in this tab. */
  onSignOut?: () => void;
  /** False when the API takes no keys (the key field is then not offered). @default true */
  keys?: boolean;
}

export function App({ createApi, initialApiKey, onApiKeyChange, initialUser, onSignIn, onSignOut, keys = true }: AppProps) {
  const [hash, setHash] = useState(() => window.location.hash);
  const [apiKey, setApiKey] = useState(initialApiKey);
  const [user, setUser] = useState(initialUser);
  const [tenant, setTenant] = useState(readTenant);
  // A new client when the key, the user or the tenant changes, so every page reloads with it. An expired token is not sent.
  const api = useMemo(
    () =>
      createApi(
        () => apiKey,
        () => (user && (user.expiresAt === undefined || user.expiresAt * 1000 > Date.now()) ? user.accessToken : undefined),
        tenant,
      ),
    [createApi, apiKey, user, tenant],
  );
  // The caller's tenants and roles (deployment-wide, so the same whichever tenant is picked): the picker offers
  // only those tenants, and the Tenants section is there for a tenant admin only.
  const caller = useAsync(() => api.whoAmI(), [api]);
  const chooseTenant = (tenantId: string | undefined) => {
    const chosen = tenantId === 'default' ? undefined : tenantId;
    writeTenant(chosen);
    setTenant(chosen);
  };
  // A kept tenant the caller may not use (another key, a deleted tenant) goes back to the default one.
  useEffect(() => {
    if (tenant && caller.data && !caller.data.tenants.includes(tenant)) chooseTenant(undefined);
  }, [caller.data]);
  const tenantAdmin = caller.data?.roles.includes(TENANT_ADMIN_ROLE) ?? false;
  // An expired token is no sign-in: the header then offers Sign in again (tokens are not renewed silently).
  useEffect(() => {
    if (user?.expiresAt === undefined) return;
    const timer = setTimeout(() => setUser(undefined), Math.max(0, user.expiresAt * 1000 - Date.now()));
    return () => clearTimeout(timer);
  }, [user]);
  useEffect(() => {
    const onChange = () => setHash(window.location.hash);
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  const route = parseHash(hash);
  const firstPage = useRef(true);
  // A layout effect, so focus moves in the same frame the new page is committed: a passive effect would leave
  // focus on <body> (the clicked link is gone) until the next frame, and a screen reader would announce that.
  useLayoutEffect(() => {
    // After a navigation, not on load: a fresh page starts at the top, where the skip link is.
    if (!firstPage.current) document.getElementById('page-title')?.focus();
    firstPage.current = false;
    document.title = `${route.page === 'notFound' ? 'Not found' : route.page[0]!.toUpperCase() + route.page.slice(1)} · Signalbox console`;
  }, [hash]);
  const current = (page: ConsoleRoute['page'][]) => (page.includes(route.page) ? 'page' : undefined);
  return (
    <ApiContext.Provider value={api}>
      <a class="skip-link" href="#main" onClick={(event) => (event.preventDefault(), document.getElementById('main')?.focus())}>
        Skip to content
      </a>
      <header class="app-header">
        <p class="brand">Signalbox</p>
        <nav aria-label="Sections">
          <ul>
            <li>
              <a href="#/workflows" aria-current={current(['workflows', 'workflow'])}>
                Workflows
              </a>
            </li>
            <li>
              <a href="#/instances" aria-current={current(['instances', 'instance'])}>
                Instances
              </a>
            </li>
            <li>
              <a href="#/operations" aria-current={current(['operations', 'operation'])}>
                Operations
              </a>
            </li>
            {tenantAdmin && (
              <li>
                <a href="#/tenants" aria-current={current(['tenants'])}>
                  Tenants
                </a>
              </li>
            )}
          </ul>
        </nav>
        {caller.data && caller.data.tenants.length > 1 && <TenantPicker tenants={caller.data.tenants} tenant={tenant ?? 'default'} onChange={chooseTenant} />}
        <InstanceSearch />
        <Account
          user={user}
          {...(onSignIn ? { onSignIn: () => onSignIn(window.location.hash) } : {})}
          onSignOut={() => {
            setUser(undefined);
            onSignOut?.();
          }}
          keys={keys}
          apiKey={apiKey}
          onApiKeyChange={(key) => {
            setApiKey(key);
            onApiKeyChange?.(key);
          }}
        />
      </header>
      <main id="main" tabIndex={-1}>
        <Page key={`${tenant ?? 'default'}${hash}`} route={route} onTenantsChanged={caller.reload} />
      </main>
    </ApiContext.Provider>
  );
}
