/**
 * @module Adds a managed-identity bearer token for requests that ask for one. `@azure/identity` is
 * imported lazily, here and nowhere else in src/engine, so the engine (and its tests) need no Azure.
 */
import type { ExternalPolicy } from './types';
import { ExternalServiceError } from './types';

/** Returns a bearer token for a scope; injected in tests, DefaultAzureCredential otherwise. */
export type TokenProvider = (scope: string, signal?: AbortSignal) => Promise<string>;

/** A scope from a resource: `api://x` → `api://x/.default` (a scope given already is kept). */
export function scopeOf(resource: string): string {
  return resource.endsWith('/.default') ? resource : `${resource.replace(/\/+$/, '')}/.default`;
}

export function defaultAzureTokenProvider(): TokenProvider {
  let credential: Promise<{ getToken(scope: string, options?: { abortSignal?: AbortSignal }): Promise<{ token: string } | null> }> | undefined;
  return async (scope, signal) => {
    credential ??= import('@azure/identity').then((identity) => new identity.DefaultAzureCredential());
    // The credential caches tokens and refreshes them before they expire.
    const token = await (await credential).getToken(scope, { abortSignal: signal });
    if (!token) throw new ExternalServiceError(`no managed-identity token for ${scope}`);
    return token.token;
  };
}

export function managedIdentityPolicy(tokenProvider: TokenProvider): ExternalPolicy {
  return {
    name: 'managedIdentity',
    async sendRequest(request, next) {
      if (!request.managedIdentityResource) return next(request);
      let token: string;
      try {
        token = await tokenProvider(scopeOf(request.managedIdentityResource), request.abortSignal);
      } catch (error) {
        throw new ExternalServiceError(`could not get a managed-identity token for ${request.managedIdentityResource}: ${(error as Error).message}`, undefined, { cause: error });
      }
      return next({ ...request, headers: { ...request.headers, authorization: `Bearer ${token}` } });
    },
  };
}
