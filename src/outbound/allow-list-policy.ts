/**
 * @module The allow-list as a pipeline policy: a request whose URL is not http(s) or whose host is not
 * listed never leaves the process. Names are checked here; the addresses they resolve to are checked
 * where the connection is made (`guarded-lookup.ts`), so DNS rebinding cannot slip past.
 */
import type { PipelinePolicy } from '@azure/core-rest-pipeline';
import { OutboundRefusedError } from '../engine/steps';
import { redactSecrets } from '../engine/model';
import { isHostAllowed } from './allowed-hosts';

export const allowListPolicyName = 'signalboxAllowList';

/** Why the allow-list refuses `url` (not a URL, not http(s), a host not listed), or undefined when it admits it. */
export function allowListRefusal(url: string, allowedHosts: readonly string[]): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `"${redactSecrets(url)}" is not a URL`;
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return `the scheme of ${redactSecrets(url)} is not http or https`;
  if (!isHostAllowed(parsed, allowedHosts)) return `the host "${parsed.hostname}" is not on the allow-list (SIGNALBOX_ALLOWED_HOSTS)`;
  return undefined;
}

export function allowListPolicy(allowedHosts: readonly string[]): PipelinePolicy {
  return {
    name: allowListPolicyName,
    sendRequest(request, next) {
      // A refusal is the host's configuration, not a transient fault: OutboundRefusedError.
      const refusal = allowListRefusal(request.url, allowedHosts);
      if (refusal !== undefined) return Promise.reject(new OutboundRefusedError(refusal));
      return next(request);
    },
  };
}
