/**
 * @module Signing in to the console with OpenID Connect: authorization code with PKCE, by oidc-client-ts
 * (a well-kept OIDC client that works with Microsoft Entra ID and any standard provider), with the
 * authority, client id and scope the server names (GET /api/console-config).
 *
 * The user, with their tokens, and the sign-in's state (PKCE verifier, nonce) are kept in sessionStorage
 * only: they last for this tab and are gone when it closes, never in localStorage or a cookie. The token is
 * not renewed silently (that needs a hidden frame of the provider, which the console's content security
 * policy does not allow): when it expires the console asks to sign in again.
 */
import { UserManager, WebStorageStateStore, type User } from 'oidc-client-ts';
import type { ConsoleConfig } from '../api/console-api';

export interface SignedInUser {
  /** For `Authorization: Bearer`. */
  readonly accessToken: string;
  /** From the ID token, until the API says who it takes the user for. */
  readonly name: string;
  /** Seconds since the epoch. */
  readonly expiresAt: number | undefined;
}

export interface SignIn {
  /** Sends the browser to the provider; `returnTo` (the console's hash route) is where it comes back to. */
  start(returnTo: string): Promise<void>;
  /**
   * The signed-in user: after a redirect back from the provider, the code redeemed and the URL cleaned
   * (the hash route restored); otherwise the one kept for this tab, unless it has expired.
   */
  restore(): Promise<SignedInUser | undefined>;
  /** Forgets the user in this tab (the provider's own session is left alone). */
  forget(): Promise<void>;
}

function signedIn(user: User | null): SignedInUser | undefined {
  if (!user || user.expired || !user.access_token) return undefined;
  const { name, preferred_username: username, sub } = user.profile;
  return { accessToken: user.access_token, name: name ?? username ?? sub, expiresAt: user.expires_at };
}

/** True when this URL is the provider's redirect back (`?code=...&state=...`, or `?error=...&state=...`). */
export function isSignInCallback(url: URL): boolean {
  return url.searchParams.has('state') && (url.searchParams.has('code') || url.searchParams.has('error'));
}

/** `consoleUrl`: the console's own URL without query or hash, registered at the provider as the redirect URI. */
export function createSignIn(settings: NonNullable<ConsoleConfig['signIn']>, consoleUrl: string, storage: Storage = window.sessionStorage): SignIn {
  const store = new WebStorageStateStore({ store: storage, prefix: 'signalbox.oidc.' });
  const manager = new UserManager({
    authority: settings.authority,
    client_id: settings.clientId,
    redirect_uri: consoleUrl,
    scope: settings.scope,
    response_type: 'code',
    userStore: store,
    stateStore: new WebStorageStateStore({ store: storage, prefix: 'signalbox.oidc-state.' }),
    automaticSilentRenew: false,
    loadUserInfo: false,
  });
  return {
    start: (returnTo) => manager.signinRedirect({ url_state: returnTo }),
    async restore() {
      const url = new URL(window.location.href);
      if (!isSignInCallback(url)) return signedIn(await manager.getUser());
      try {
        const user = await manager.signinRedirectCallback(url.href);
        window.history.replaceState(null, '', `${url.pathname}${user.url_state ?? ''}`);
        return signedIn(user);
      } catch (error) {
        // The code and state go from the address bar whatever happened: they are single use.
        window.history.replaceState(null, '', url.pathname);
        throw error;
      }
    },
    forget: () => manager.removeUser(),
  };
}
