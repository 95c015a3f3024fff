/**
 * @module The host-neutral shape of an API request and response. The local server (node:http) and the
 * Azure Functions app (HttpRequest) both translate into these, so one set of handlers serves both.
 */
import type { Engine } from '../../engine/engine';
import type { OperationStore } from '../../engine/ports';
import type { TriggerSubmitter } from '../trigger-submitter';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';

export interface ApiRequest {
  readonly method: string;
  readonly url: URL;
  /** Route parameters, already URL-decoded. */
  readonly params: Readonly<Record<string, string>>;
  readonly headers: { get(name: string): string | null };
  /** The raw body, or undefined when there is none. Hosts cap it at MAX_BODY_SIZE_IN_BYTES. */
  readonly bodyText: string | undefined;
}

export interface ApiResponse {
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>>;
  /** Serialised as JSON; absent for an empty body. */
  readonly body?: unknown;
  /** A body that is not JSON (a Mermaid diagram), sent as is; its content-type header goes with it. */
  readonly text?: string;
}

/** Everything a handler may use; built once per process by src/host/wiring.ts. */
export interface ApiServices {
  readonly engine: Engine;
  readonly operations: OperationStore;
  readonly triggers: TriggerSubmitter;
  /** True when storage answers. */
  checkHealth(): Promise<boolean>;
}

export interface RouteDefinition {
  /** Function name on Azure. */
  readonly name: string;
  readonly methods: readonly HttpMethod[];
  /** Relative to /api, with `{param}` placeholders, as Azure Functions routes are written. */
  readonly route: string;
  readonly authLevel: 'anonymous' | 'function';
  handle(request: ApiRequest, services: ApiServices): Promise<ApiResponse>;
}

export const MAX_BODY_SIZE_IN_BYTES = 1024 * 1024;
