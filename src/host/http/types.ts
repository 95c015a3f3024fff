/**
 * @module The host-neutral shape of an API request and response. The local server (node:http) and the
 * Azure Functions app (HttpRequest) both translate into these, so one set of handlers serves both.
 */
import type { z } from 'zod';
import type { DailyCosts } from '../cost/daily-costs';
import type { PriceTable } from '../cost/price-table';
import type { Actor } from '../../engine/model';
import type { Engine } from '../../engine/engine';
import type { OperationStore } from '../../engine/ports';
import type { AwaitOperation } from '../operation-wait';
import type { TriggerSubmitter } from '../trigger-submitter';
import type { RouteRole, TenantGrant } from './access';
import type { TenantAdministration } from '../tenants';
import type { ConsoleConfig } from './system/console-routes';
import type { TenantQuotaGate } from '../tenant-quotas';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';

export interface ApiRequest {
  readonly method: string;
  readonly url: URL;
  /** Route parameters, already URL-decoded. */
  readonly params: Readonly<Record<string, string>>;
  readonly headers: { get(name: string): string | null };
  /** The raw body, or undefined when there is none. Hosts cap it at `maxBodyBytes`. */
  readonly bodyText: string | undefined;
  /** The most the body may hold (transport.ts, bodyLimitOf). @default MAX_BODY_SIZE_IN_BYTES */
  readonly maxBodyBytes?: number;
  /**
   * Who the host let in, as far as it knows (there are no user identities yet): `api-key` when a key
   * was required and given, `function-key` on Azure Functions, `anonymous` otherwise. Recorded with changes
   * people make by hand (a recovery).
   */
  readonly principal?: string;
  /** Who the request acts as: set by the host after the access check (access.ts), never from the request body. */
  readonly actor?: Actor;
  /** The tenant the request is for: `default` for `/api/...`, `{tenantId}` for `/api/tenants/{tenantId}/...`. */
  readonly tenantId: string;
  /** The tenants the credential may use (access.ts); absent when the host named none (tests that call handlers directly). */
  readonly tenants?: TenantGrant;
}

/** The request's principal, `anonymous` when the host named none. */
export function principalOf(request: ApiRequest): string {
  return request.actor?.id ?? request.principal ?? 'anonymous';
}

/** The request's actor; an open local server's when the host named none (tests that call handlers directly). */
export function actorOf(request: ApiRequest): Actor {
  return request.actor ?? { id: principalOf(request), name: principalOf(request), roles: [], via: 'key' };
}

export interface ApiResponse {
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>>;
  /** Serialised as JSON; absent for an empty body. */
  readonly body?: unknown;
  /** A body that is not JSON (a Mermaid diagram), sent as is; its content-type header goes with it. */
  readonly text?: string;
}

/** Everything a handler may use; built once per process by src/host/host-services.ts. */
export interface ApiServices {
  readonly engine: Engine;
  readonly operations: OperationStore;
  readonly triggers: TriggerSubmitter;
  /** Waits for an operation to finish without polling storage (`Prefer: wait`): see operation-wait.ts. */
  readonly awaitOperation: AwaitOperation;
  /** Ids of triggers and instances created without one (the engine's id port). */
  readonly newId: () => string;
  /** True when storage answers. */
  checkHealth(): Promise<boolean>;
  /** What the web console signs in with (SIGNALBOX_CONSOLE_*), read once at start-up. */
  readonly consoleConfig: ConsoleConfig;
  /** The tenant registry's administration (/api/tenants); absent on a host without tenants (in-memory tests). */
  readonly tenants?: TenantAdministration;
  /** The tenant's quotas (tenant-quotas.ts), asked before a trigger, operation or instance is recorded; absent: none. */
  readonly quotas?: TenantQuotaGate;
  /** What operations cost per workflow per day (GET /api/workflows/{id}/cost); absent: not kept. */
  readonly costs?: Pick<DailyCosts, 'list'>;
  /** Turns counts into money (src/host/cost/price-table.ts); absent: the default price table. */
  readonly priceTable?: PriceTable;
}

/** A JSON Schema the OpenAPI document holds as a component (the workflow definition's, per registry). */
export interface SchemaReference {
  readonly $ref: string;
}

/** One answer of a route, as the OpenAPI document describes it. */
export interface ResponseContract {
  readonly description: string;
  /** The body's schema; absent for an empty body. */
  readonly body?: z.ZodType | SchemaReference;
  /** @default 'application/json' */
  readonly contentType?: string;
  readonly headers?: z.ZodObject;
}

/**
 * What a route accepts and answers: the OpenAPI document (openapi.ts) is built from these, and the
 * handler parses its query with the same `query` schema. Answers every route shares (401 without a
 * key, 400/413/415 for bodies, 400 for query strings, 503 when storage fails) are added by the builder.
 */
export interface RouteContract {
  readonly summary: string;
  readonly description?: string;
  readonly tags: readonly string[];
  /** Path parameters; each defaults to a plain string. */
  readonly path?: z.ZodObject;
  readonly query?: z.ZodObject;
  readonly headers?: z.ZodObject;
  readonly body?: z.ZodType | SchemaReference;
  /** Every answer by status; a string is a problem+json answer with that description. */
  readonly responses: Readonly<Record<number, ResponseContract | string>>;
  /** True for routes that answer without storage (no 503). */
  readonly withoutStorage?: boolean;
}

export interface RouteDefinition {
  /** Function name on Azure. */
  readonly name: string;
  readonly methods: readonly HttpMethod[];
  /** Relative to /api, with `{param}` placeholders, as Azure Functions routes are written. */
  readonly route: string;
  readonly authLevel: 'anonymous' | 'function';
  /** The app role a caller needs (access.ts), or `public`; the OpenAPI document says it as `x-signalbox-role`. */
  readonly role: RouteRole;
  /**
   * `deployment` for routes about the deployment itself (the tenants admin API): not served under
   * `/api/tenants/{tenantId}/`. @default 'tenant' (every route is served for each tenant)
   */
  readonly scope?: 'tenant' | 'deployment';
  /**
   * `instanceCreation`: the body may be as large as SIGNALBOX_MAX_CREATE_BODY_MB allows (a context created
   * whole), not MAX_BODY_SIZE_IN_BYTES. @default the request body limit of every route
   */
  readonly bodyLimit?: 'instanceCreation';
  readonly contract: RouteContract;
  handle(request: ApiRequest, services: ApiServices): Promise<ApiResponse>;
}

export const MAX_BODY_SIZE_IN_BYTES = 1024 * 1024;
