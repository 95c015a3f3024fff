/**
 * @module Who is using the console, in the header: the signed-in user's name and roles as the API sees
 * them (GET /api/me) with a way to sign out; or, signed out, a sign-in button where sign-in is configured
 * and the key field where the API takes keys.
 */
import { useApi } from '../api-context';
import { useAsync } from '../lib/use-async';
import type { SignedInUser } from '../lib/sign-in';
import { KeyForm } from './key-form';

export interface AccountProps {
  readonly user: SignedInUser | undefined;
  /** Absent when the server names no sign-in authority. */
  readonly onSignIn?: () => void;
  readonly onSignOut: () => void;
  /** True when the API takes keys. */
  readonly keys: boolean;
  readonly apiKey: string | undefined;
  readonly onApiKeyChange: (key: string | undefined) => void;
}

function SignedIn({ user, onSignOut }: { user: SignedInUser; onSignOut: () => void }) {
  const api = useApi();
  const identity = useAsync(() => api.whoAmI(), [api, user.accessToken]);
  const name = identity.data?.name ?? user.name;
  const roles = identity.data?.roles ?? [];
  return (
    <div class="account" data-testid="account">
      <span class="account-name">
        Signed in as <strong>{name}</strong>
      </span>
      {identity.data && <span class="account-roles">{roles.length > 0 ? roles.join(', ') : 'no roles'}</span>}
      <button type="button" class="secondary" onClick={onSignOut}>
        Sign out
      </button>
    </div>
  );
}

export function Account({ user, onSignIn, onSignOut, keys, apiKey, onApiKeyChange }: AccountProps) {
  if (user) return <SignedIn user={user} onSignOut={onSignOut} />;
  return (
    <div class="account">
      {onSignIn && (
        <button type="button" onClick={onSignIn}>
          Sign in
        </button>
      )}
      {(keys || apiKey) && <KeyForm apiKey={apiKey} onChange={onApiKeyChange} />}
    </div>
  );
}
