/**
 * @module What this server's API offers beyond the first wave, read from its OpenAPI document, so the
 * console offers only what the API does (a dry run is never attempted on a server that would send instead).
 */
import { instanceStatuses, type InstanceStatus } from './types';

export interface Capabilities {
  diagram: boolean;
  availableTriggers: boolean;
  dryRun: boolean;
  /** `POST /api/instances/{id}/suspend` and `/resume`. */
  suspendResume: boolean;
  /** `GET /api/instances/{id}/events`: lifecycle events and their deliveries. */
  lifecycleEvents: boolean;
  /** The statuses `GET /api/instances?status=` accepts (`suspended` only once the API has it). */
  statuses: InstanceStatus[];
}

/** The first wave's statuses, for a document that does not list them. */
export const firstWaveStatuses: InstanceStatus[] = ['initializing', 'waiting', 'faulted', 'complete', 'cancelled'];

interface OpenApiOperation {
  parameters?: Array<{ name?: string; in?: string; schema?: { enum?: unknown[] } }>;
}
type OpenApiPaths = Record<string, Record<string, OpenApiOperation | undefined> | undefined>;

/**
 * Path templates compared with their parameter names blanked (`/a/{id}` and `/a/{instanceId}` are one),
 * and with or without the `/api` prefix (a document may put it in `servers` instead).
 */
function findOperation(paths: OpenApiPaths, template: string, method: string): OpenApiOperation | undefined {
  const shape = (path: string) => path.replace(/^\/api(?=\/)/, '').replace(/\{[^}]+\}/g, '{}');
  const key = Object.keys(paths).find((path) => shape(path) === shape(template));
  return key ? paths[key]?.[method] : undefined;
}

export function capabilitiesFrom(document: unknown): Capabilities {
  const paths = ((document as { paths?: OpenApiPaths } | null)?.paths ?? {}) as OpenApiPaths;
  const instanceTrigger = findOperation(paths, '/instances/{}/triggers', 'post');
  const statusParameter = findOperation(paths, '/instances', 'get')?.parameters?.find((parameter) => parameter.name === 'status' && parameter.in === 'query');
  const listed = (statusParameter?.schema?.enum ?? []).filter((value): value is InstanceStatus => (instanceStatuses as readonly unknown[]).includes(value));
  return {
    statuses: listed.length ? instanceStatuses.filter((status) => listed.includes(status)) : firstWaveStatuses,
    diagram: findOperation(paths, '/workflows/{}/diagram', 'get') !== undefined,
    availableTriggers: findOperation(paths, '/instances/{}/available-triggers', 'get') !== undefined,
    dryRun: (instanceTrigger?.parameters ?? []).some((parameter) => parameter.name === 'dryRun' && parameter.in === 'query'),
    suspendResume: findOperation(paths, '/instances/{}/suspend', 'post') !== undefined && findOperation(paths, '/instances/{}/resume', 'post') !== undefined,
    lifecycleEvents: findOperation(paths, '/instances/{}/events', 'get') !== undefined,
  };
}
