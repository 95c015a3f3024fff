/**
 * @module Managed-identity tokens for steps with `authentication: { managedIdentity }`. The token is added
 * by the Azure SDK's `bearerTokenAuthenticationPolicy` (one per scope, which caches and refreshes it),
 * and that policy refuses any URL that is not https: a token never travels in clear text.
 */
import type { AccessToken, GetTokenOptions, TokenCredential } from '@azure/core-auth';
import { bearerTokenAuthenticationPolicy, type PipelinePolicy } from '@azure/core-rest-pipeline';
import { ExternalServiceError } from '../engine/steps';

/** A scope from a resource: `api://x` → `api://x/.default` (a scope given already is kept). */
export function scopeOf(resource: string): string {
  return resource.endsWith('/.default') ? resource : `${resource.replace(/\/+$/, '')}/.default`;
}

/** DefaultAzureCredential, imported on first use so that hosts without managed-identity steps never load it. */
export function lazyDefaultAzureCredential(): TokenCredential {
  let credential: Promise<TokenCredential> | undefined;
  return {
    async getToken(scopes: string | string[], options?: GetTokenOptions): Promise<AccessToken | null> {
      credential ??= import('@azure/identity').then((identity) => new identity.DefaultAzureCredential());
      return (await credential).getToken(scopes, options);
    },
  };
}

/** A credential whose failures name the resource, so the instance's fault says what went wrong. */
function describingFailures(credential: TokenCredential, resource: string): TokenCredential {
  return {
    async getToken(scopes, options) {
      let token: AccessToken | null;
      try {
        token = await credential.getToken(scopes, options);
      } catch (error) {
        throw new ExternalServiceError(`could not get a managed-identity token for ${resource}: ${(error as Error).message}`, undefined, { cause: error });
      }
      if (!token) throw new ExternalServiceError(`no managed-identity token for ${resource}`);
      return token;
    },
  };
}

export function managedIdentityPolicy(credential: TokenCredential, resource: string): PipelinePolicy {
  return bearerTokenAuthenticationPolicy({ credential: describingFailures(credential, resource), scopes: scopeOf(resource) });
}
