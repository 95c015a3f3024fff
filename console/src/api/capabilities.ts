/**
 * @module What this server's API offers beyond the first wave, read from its OpenAPI document, so the
 * console offers only what the API does (a dry run is never attempted on a server that would send instead).
 */
export interface Capabilities {
  diagram: boolean;
  availableTriggers: boolean;
  dryRun: boolean;
}

interface OpenApiOperation {
  parameters?: Array<{ name?: string; in?: string }>;
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
  return {
    diagram: findOperation(paths, '/workflows/{}/diagram', 'get') !== undefined,
    availableTriggers: findOperation(paths, '/instances/{}/available-triggers', 'get') !== undefined,
    dryRun: (instanceTrigger?.parameters ?? []).some((parameter) => parameter.name === 'dryRun' && parameter.in === 'query'),
  };
}
