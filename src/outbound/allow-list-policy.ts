/**
 * @module The allow-list as a pipeline policy: a request whose URL is not http(s) or whose host is not
 * listed never leaves the process. Names are checked here; the addresses they resolve to are checked
 * where the connection is made (`guarded-lookup.ts`), so DNS rebinding cannot slip past.
 */
import type { PipelinePolicy } from '@azure/core-rest-pipeline';
import { ExternalServiceError } from '../engine/outbound-port';
import { redactSecrets } from '../engine/redaction';
import { isHostAllowed } from './allowed-hosts';

export const allowListPolicyName = 'signalboxAllowList';

export function allowListPolicy(allowedHosts: readonly string[]): PipelinePolicy {
  return {
    name: allowListPolicyName,
    sendRequest(request, next) {
      let url: URL;
      try {
        url = new URL(request.url);
      } catch (error) {
        return Promise.reject(new ExternalServiceError(`"${redactSecrets(request.url)}" is not a URL`, undefined, { cause: error }));
      }
      if (url.protocol !== 'https:' && url.protocol !== 'http:') {
        return Promise.reject(new ExternalServiceError(`the scheme of ${redactSecrets(request.url)} is not http or https`));
      }
      if (!isHostAllowed(url, allowedHosts)) {
        return Promise.reject(new ExternalServiceError(`the host "${url.hostname}" is not on the allow-list (SIGNALBOX_ALLOWED_HOSTS)`));
      }
      return next(request);
    },
  };
}
