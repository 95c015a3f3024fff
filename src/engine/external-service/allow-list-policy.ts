/**
 * @module Outbound calls go only to listed hosts: an exact host name or `*.suffix` (any subdomain).
 * Loopback hosts are refused unless listed exactly, so a wildcard can never open the local machine.
 */
import type { ExternalPolicy } from './types';
import { ExternalServiceError } from './types';

export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  return host === 'localhost' || host.endsWith('.localhost') || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host) || host === '::1' || host === '0.0.0.0' || host === '::';
}

export function isHostAllowed(url: URL, allowedHosts: readonly string[]): boolean {
  const host = url.hostname.toLowerCase().replace(/^\[|\]$/g, '');
  const entries = allowedHosts.map((entry) => entry.trim().toLowerCase().replace(/^\[|\]$/g, '')).filter(Boolean);
  if (entries.includes(host)) return true;
  if (isLoopbackHost(host)) return false;
  return entries.some((entry) => entry.startsWith('*.') && host.endsWith(entry.slice(1)) && host.length > entry.length - 1);
}

export function allowListPolicy(allowedHosts: readonly string[]): ExternalPolicy {
  return {
    name: 'allowList',
    sendRequest(request, next) {
      let url: URL;
      try {
        url = new URL(request.url);
      } catch (error) {
        return Promise.reject(new ExternalServiceError(`"${request.url}" is not a URL`, undefined, { cause: error }));
      }
      if (url.protocol !== 'https:' && url.protocol !== 'http:') {
        return Promise.reject(new ExternalServiceError(`the scheme of ${request.url} is not http or https`));
      }
      if (!isHostAllowed(url, allowedHosts)) {
        return Promise.reject(new ExternalServiceError(`the host "${url.hostname}" is not on the allow-list (SIGNALBOX_ALLOWED_HOSTS)`));
      }
      return next(request);
    },
  };
}
