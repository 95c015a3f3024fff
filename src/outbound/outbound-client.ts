/**
 * @module The outbound client the hosts give the engine as `EngineOptions.http`: one Azure SDK pipeline
 * (`@azure/core-rest-pipeline`) per managed-identity scope, with these policies, outermost first:
 *
 * 1. the allow-list (by name, before anything leaves the process);
 * 2. bounded retries (`Retry-After` honoured, backoff for transient failures), or the step's own policy;
 * 3. the workflow's rate limits: each attempt waits for a slot, within its time limit (`flow.rateLimits`);
 * 4. a managed-identity bearer token, for requests that ask for one (https only);
 * 5. a deadline per attempt, body included (less the wait for a slot);
 * 6. the response size limit (after decompression).
 *
 * Connections resolve names through the guarded lookup (no private addresses unless listed), and
 * redirects are not followed: no redirect policy is in the pipeline, so a 3xx is a non-2xx answer, a
 * fault (the allow-list vouched for this URL only, and a redirect could carry the token anywhere).
 */
import type { TokenCredential } from '@azure/core-auth';
import { createDefaultHttpClient, createEmptyPipeline, createHttpHeaders, createPipelineRequest, isRestError, type HttpClient, type Pipeline, type PipelineRequest } from '@azure/core-rest-pipeline';
import { ExternalServiceError, OutboundRefusedError, type StepRetry, type ExternalRequest, type ExternalResponse, type ExternalServiceClient } from '../engine/steps';
import { BoundedMap, foreignErrorCode } from '../engine/model';
import { redactSecrets } from '../engine/model';
import { allowListPolicy, allowListRefusal } from './allow-list-policy';
import { createConnectionAgents } from './connection-agents';
import { ADDRESS_REFUSED, type ResolveAll } from './guarded-lookup';
import { lazyDefaultAzureCredential, managedIdentityPolicy } from './managed-identity';
import { DEFAULT_MAX_RESPONSE_BYTES, responseSizePolicy } from './response-size-policy';
import { outboundRetryPolicy, type OutboundRetryOptions } from './retry-policy';
import { stepRetryPolicy } from './step-retry-policy';
import { timeoutPolicy } from './timeout-policy';
import { rateLimitPolicy, type RateLimitedRequest } from './rate-limit-policy';
import { RateLimiter } from './rate-limiter';
import { callMeterPolicy, type OutboundCallMeter } from './call-meter-policy';

export interface OutboundClientOptions extends OutboundRetryOptions {
  /** Hosts calls may reach (exact names or addresses, or `*.suffix`); private addresses only when listed exactly. @default [] (none) */
  allowedHosts?: readonly string[];
  /** Per attempt, body included, unless the step sets `timeoutMs`. @default 10000 */
  defaultTimeoutInMs?: number;
  /** The largest response body, after decompression; a larger one is a fault. @default 1 MiB */
  maxResponseBytes?: number;
  /** Managed-identity tokens. @default DefaultAzureCredential from @azure/identity, imported on first use */
  credential?: TokenCredential;
  /** PEM certificates trusted besides the system's roots (a private CA; tests use a self-signed one). */
  trustedCertificates?: readonly string[];
  /** Name resolution under the address guard. @default dns.lookup */
  resolveAll?: ResolveAll;
  /** The transport. @default the Azure SDK's Node.js HTTP client */
  httpClient?: HttpClient;
  /** The slots of `flow.rateLimits` (rate-limiter.ts): share one between clients to share the limits. @default one of its own, in process */
  rateLimiter?: RateLimiter;
  /** Told every attempt sent and its body bytes (the cost of operations: src/host/cost). */
  meter?: OutboundCallMeter;
}

/** Scopes whose pipeline (and cached token) is kept; more distinct resources than this rebuild theirs. */
const MAX_CACHED_SCOPES = 64;

export function createOutboundClient(options: OutboundClientOptions = {}): ExternalServiceClient {
  const allowedHosts = [...(options.allowedHosts ?? [])];
  const agents = createConnectionAgents({
    allowedHosts,
    ...(options.trustedCertificates ? { trustedCertificates: options.trustedCertificates } : {}),
    ...(options.resolveAll ? { resolveAll: options.resolveAll } : {}),
  });
  const httpClient = options.httpClient ?? createDefaultHttpClient();
  const credential = options.credential ?? lazyDefaultAzureCredential();
  const timeouts = new WeakMap<PipelineRequest, number>();
  const statusOnly = new WeakSet<PipelineRequest>();
  const stepRetries = new WeakMap<PipelineRequest, StepRetry>();
  const rateLimited = new WeakMap<PipelineRequest, RateLimitedRequest>();
  const waitedForSlot = new WeakMap<PipelineRequest, number>();
  const rateLimiter = options.rateLimiter ?? new RateLimiter();
  const defaultTimeoutInMs = options.defaultTimeoutInMs ?? 10_000;
  /** The attempt's deadline: the step's time limit (or the default), less what it waited for a rate limit's slot. */
  const attemptTimeoutInMs = (request: PipelineRequest): number | undefined => {
    const waited = waitedForSlot.get(request) ?? 0;
    return waited > 0 ? Math.max(1, (timeouts.get(request) ?? defaultTimeoutInMs) - waited) : timeouts.get(request);
  };

  function pipelineWith(resource: string | undefined): Pipeline {
    const pipeline = createEmptyPipeline();
    pipeline.addPolicy(allowListPolicy(allowedHosts));
    // A step's own retry policy when it has one, else the client's default retries.
    pipeline.addPolicy(stepRetryPolicy(outboundRetryPolicy(options), (request) => stepRetries.get(request)));
    pipeline.addPolicy(
      rateLimitPolicy(
        rateLimiter,
        (request) => rateLimited.get(request),
        (request, waitedInMs) => waitedForSlot.set(request, waitedInMs),
      ),
    );
    if (resource !== undefined) pipeline.addPolicy(managedIdentityPolicy(credential, resource));
    pipeline.addPolicy(timeoutPolicy(defaultTimeoutInMs, attemptTimeoutInMs));
    // Per attempt (after the retry policy), outside the size policy, which reads the body into text for it.
    if (options.meter) pipeline.addPolicy(callMeterPolicy(options.meter));
    pipeline.addPolicy(responseSizePolicy(options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES, (request) => statusOnly.has(request)));
    return pipeline;
  }
  const anonymous = pipelineWith(undefined);
  const withToken = new BoundedMap<string, Pipeline>(MAX_CACHED_SCOPES);
  function pipelineFor(resource: string | undefined): Pipeline {
    if (resource === undefined) return anonymous;
    let pipeline = withToken.get(resource);
    if (!pipeline) {
      pipeline = pipelineWith(resource);
      withToken.set(resource, pipeline);
    }
    return pipeline;
  }

  return {
    refusal: (url) => allowListRefusal(url, allowedHosts),
    async send(request: ExternalRequest): Promise<ExternalResponse> {
      if (request.managedIdentityResource !== undefined && !/^https:/i.test(request.url)) {
        throw new OutboundRefusedError(`a managed-identity token is only sent over https, and ${redactSecrets(request.url)} is not https`);
      }
      const pipelineRequest = createPipelineRequest({
        url: request.url,
        method: request.method,
        headers: createHttpHeaders({ ...request.headers, 'accept-encoding': 'gzip, deflate' }),
        ...(request.body !== undefined ? { body: request.body } : {}),
        ...(request.abortSignal ? { abortSignal: request.abortSignal } : {}),
        // http is allowed for listed hosts; the token policy still refuses it.
        allowInsecureConnection: true,
      });
      pipelineRequest.agent = agents.forUrl(request.url);
      if (request.timeoutInMs !== undefined) timeouts.set(pipelineRequest, request.timeoutInMs);
      if (request.statusOnly) statusOnly.add(pipelineRequest);
      if (request.retry) stepRetries.set(pipelineRequest, request.retry);
      if (request.rateLimits?.length) {
        rateLimited.set(pipelineRequest, {
          rateLimits: request.rateLimits,
          timeLimitInMs: request.timeoutInMs ?? defaultTimeoutInMs,
          ...(request.onThrottled ? { onThrottled: request.onThrottled } : {}),
        });
      }
      try {
        const response = await pipelineFor(request.managedIdentityResource).sendRequest(httpClient, pipelineRequest);
        return { status: response.status, body: parseBody(response.bodyAsText) };
      } catch (error) {
        throw asExternalServiceError(error, request);
      }
    },
  };
}

/** Parsed JSON when the body is JSON, else the text (undefined when empty). */
function parseBody(text: string | null | undefined): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function asExternalServiceError(error: unknown, request: ExternalRequest): ExternalServiceError {
  if (error instanceof ExternalServiceError) return error;
  // The bearer policy refuses http itself; send() checked first, this is the second lock.
  const message = error instanceof Error ? error.message : String(error);
  const status = isRestError(error) ? error.statusCode : undefined;
  // The SDK's message may quote the URL too: the whole message is redacted.
  // The guarded lookup refused the address: the configuration's answer, the same on every try.
  if (foreignErrorCode(error) === ADDRESS_REFUSED) return new OutboundRefusedError(redactSecrets(`${request.method} ${request.url} failed: ${message}`), { cause: error });
  return new ExternalServiceError(redactSecrets(`${request.method} ${request.url} failed: ${message}`), status, { cause: error });
}
