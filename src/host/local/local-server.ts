/**
 * @module The in-process local server: node:http in front of the shared route table, with the same
 * problem+json errors and HTTP manners (HEAD, 304, CORS) as the Functions app, and one structured
 * access-log line per request. Function keys are emulated by SIGNALBOX_API_KEY. Web pages are kept out
 * (request-guard.ts): a request whose Host is not this server is refused, and so is a state-changing one
 * that a browser sent from another origin (Sec-Fetch-Site, Origin) the CORS setting does not list.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { defaultConsoleFolder, serveLocalConsole, type ConsoleAssetResponse } from '../console-assets';
import { corsOff, finishResponse, preflightResponse, routingMethod, type CorsPolicy } from '../http/http-manners';
import { crossSiteRefusal, hostRefusal } from '../http/request-guard';
import { allowedMethods, matchRoute, unmatchedResponse } from '../http/routes';
import { bodyLimitOf, bodyText, checkBodySize, encodeResponse } from '../http/transport';
import type { ApiRequest, ApiResponse, ApiServices } from '../http/types';
import { problemResponse } from '../problem';
import { checkAccess, Role, type AccessPolicy } from '../http/access';
import { servicesForTenant, type TenantServicesResolver } from '../http/tenant-scope';
import type { Logger } from '../operation-activity-service';

export interface LocalServerOptions {
  /** @default 7071 */
  port?: number;
  /** @default '127.0.0.1' */
  host?: string;
  /** When set, every function-level route needs it in `x-functions-key` (or `?code=`). */
  apiKey?: string;
  /** Tokens and keys (access.ts); when set, `apiKey` is ignored. @default keys only: `apiKey`, or open without one */
  access?: AccessPolicy;
  /** The built web console, served at `/console/`. @default dist/console of this package */
  consoleFolder?: string;
  /** The body limit of an instance creation (SIGNALBOX_MAX_CREATE_BODY_MB). @default MAX_BODY_SIZE_IN_BYTES, as every body */
  maxCreateBodyBytes?: number;
  /** Other tenants' services (`/api/tenants/{tenantId}/...`). @default none: only the default tenant */
  tenants?: TenantServicesResolver;
  /** Origins browsers may call from. @default none (CORS off) */
  cors?: CorsPolicy;
  /**
   * Host header values answered besides localhost, 127.0.0.1 and [::1] on the server's port: `name` (any
   * port) or `name:port` (SIGNALBOX_SERVER_NAMES). @default none
   */
  serverNames?: readonly string[];
  logger: Logger;
}

export interface RunningServer {
  readonly url: string;
  readonly port: number;
  /** Stops taking connections and waits for in-flight requests. */
  close(): Promise<void>;
}

function readBody(request: IncomingMessage, limit: number): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      try {
        checkBodySize(size, limit);
      } catch (error) {
        // Answered at once; the rest of the body is read and dropped so that the answer reaches the client.
        reject(error as Error);
        request.resume();
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => resolve(bodyText(Buffer.concat(chunks))));
    request.on('error', reject);
  });
}

function send(response: ServerResponse, apiResponse: ApiResponse): void {
  const { status, headers, body } = encodeResponse(apiResponse);
  response.writeHead(status, headers);
  response.end(body);
}

function sendAsset(response: ServerResponse, asset: ConsoleAssetResponse): void {
  response.writeHead(asset.status, asset.headers);
  response.end(asset.body);
}

/** The policy of a server given only a key (or none: open), as before tokens. */
function keyPolicy(apiKey: string | undefined): AccessPolicy {
  return { ...(apiKey ? { apiKey } : {}), keyRoles: [Role.admin] };
}

export async function handleNodeRequest(
  request: IncomingMessage,
  response: ServerResponse,
  services: ApiServices,
  options: Pick<LocalServerOptions, 'apiKey' | 'access' | 'logger' | 'cors' | 'consoleFolder' | 'serverNames' | 'host' | 'tenants' | 'maxCreateBodyBytes'>,
): Promise<void> {
  const startedAt = performance.now();
  const url = new URL(request.url ?? '/', 'http://localhost');
  const method = (request.method ?? 'GET').toUpperCase();
  const cors = options.cors ?? corsOff;
  const headers: ApiRequest['headers'] = {
    get: (name) => {
      const value = request.headers[name.toLowerCase()];
      return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
    },
  };
  // The access log names the path only: a query string may carry a key (`code`).
  response.once('finish', () => options.logger.info('request', { method, path: url.pathname, status: response.statusCode, durationInMs: Math.round(performance.now() - startedAt) }));
  const logError = (message: string, error: unknown) => options.logger.error(message, { method, path: url.pathname, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  const reply = (apiResponse: ApiResponse) => send(response, finishResponse({ method, headers }, apiResponse, cors));
  try {
    // First, for every path (the console's too): a DNS-rebinding page must not even read.
    const port = request.socket.localPort ?? 0;
    // The address it listens on, when that is one address (not 0.0.0.0 or ::), names it too.
    const listening = options.host && options.host !== '0.0.0.0' && options.host !== '::' ? [`${options.host.includes(':') ? `[${options.host}]` : options.host}:${port}`] : [];
    const misdirected = hostRefusal(headers.get('host'), { port, serverNames: [...listening, ...(options.serverNames ?? [])] });
    if (misdirected) {
      request.resume();
      return reply(misdirected);
    }
    const apiPath = url.pathname.startsWith('/api/') ? url.pathname.slice('/api/'.length) : undefined;
    // Only an OPTIONS request can be a preflight: the methods a path allows cost a scan of every route per method.
    const preflight = apiPath !== undefined && method.toUpperCase() === 'OPTIONS' ? preflightResponse(method, headers, allowedMethods(apiPath), cors) : undefined;
    if (preflight) {
      request.resume();
      return reply(preflight);
    }
    if (apiPath === undefined) {
      const asset = await serveLocalConsole(options.consoleFolder ?? defaultConsoleFolder(), method, url.pathname, services.consoleConfig.signIn?.authority);
      if (asset) {
        request.resume();
        return sendAsset(response, asset);
      }
    }
    const { match } = apiPath !== undefined ? matchRoute(routingMethod(method), apiPath) : { match: undefined };
    if (!match) {
      request.resume();
      return reply(unmatchedResponse(method, url.pathname));
    }
    const crossSite = crossSiteRefusal({ method, headers }, cors);
    if (crossSite) {
      request.resume();
      return reply(crossSite);
    }
    // Before the body is read: a refused request changes nothing and costs little.
    const access = await checkAccess(match.route.role, { headers, url }, options.access ?? keyPolicy(options.apiKey));
    if (access.refusal) {
      request.resume();
      return reply(access.refusal);
    }
    const tenant = await servicesForTenant(match, access.tenants, services, options.tenants);
    if (tenant.refusal) {
      request.resume();
      return reply(tenant.refusal);
    }
    const maxBodyBytes = bodyLimitOf(match.route, options.maxCreateBodyBytes);
    const bodyText = await readBody(request, maxBodyBytes);
    const apiRequest: ApiRequest = {
      method,
      url,
      params: match.params,
      headers,
      bodyText,
      maxBodyBytes,
      principal: access.actor.id,
      actor: access.actor,
      tenantId: match.tenantId,
      ...(access.tenants ? { tenants: access.tenants } : {}),
    };
    reply(await match.route.handle(apiRequest, tenant.services));
  } catch (error) {
    reply(problemResponse(error, logError));
  }
}

export async function startLocalServer(services: ApiServices, options: LocalServerOptions): Promise<RunningServer> {
  const server: Server = createServer((request, response) => {
    void handleNodeRequest(request, response, services, options);
  });
  // Keep-alive sockets would hold close() open; the server is local, so idle ones are dropped quickly.
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 7071, options.host ?? '127.0.0.1', () => resolve());
  });
  const { port, address } = server.address() as AddressInfo;
  return {
    url: `http://${address}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}
