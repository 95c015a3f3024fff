/**
 * @module The sockets of outbound calls: one keep-alive agent per scheme, both resolving names through
 * the guarded lookup. Every request gets one of them, so no connection skips the address check.
 */
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { rootCertificates } from 'node:tls';
import { guardedLookup, type ResolveAll } from './guarded-lookup';

export interface ConnectionAgentOptions {
  readonly allowedHosts: readonly string[];
  /** PEM certificates trusted besides the system's roots (a private CA). */
  readonly trustedCertificates?: readonly string[];
  readonly resolveAll?: ResolveAll;
}

export interface ConnectionAgents {
  forUrl(url: string): HttpAgent;
}

export function createConnectionAgents({ allowedHosts, trustedCertificates = [], resolveAll }: ConnectionAgentOptions): ConnectionAgents {
  const lookup = guardedLookup(allowedHosts, resolveAll);
  const http = new HttpAgent({ keepAlive: true, lookup });
  const https = new HttpsAgent({ keepAlive: true, lookup, ...(trustedCertificates.length > 0 ? { ca: [...rootCertificates, ...trustedCertificates] } : {}) });
  return { forUrl: (url) => (url.toLowerCase().startsWith('https:') ? https : http) };
}
