/** What the console offers is read from the server's OpenAPI document, never guessed. */
import { capabilitiesFrom, firstWaveStatuses } from '../../console/src/api/capabilities';
import { instanceStatuses } from '../../console/src/api/types';
import { buildOpenApiDocument } from '../../src/host/http/openapi';
import { routes } from '../../src/host/http/routes';

it('finds nothing beyond the first wave in a document without those routes', () => {
  expect(capabilitiesFrom({ paths: { '/api/instances/{instanceId}/triggers': { post: {} } } })).toEqual({
    diagram: false,
    availableTriggers: false,
    dryRun: false,
    suspendResume: false,
    lifecycleEvents: false,
    statuses: firstWaveStatuses,
  });
  expect(capabilitiesFrom(null)).toEqual({ diagram: false, availableTriggers: false, dryRun: false, suspendResume: false, lifecycleEvents: false, statuses: firstWaveStatuses });
});

it('finds the diagram, available triggers and a dryRun query parameter, whatever the path parameters are named', () => {
  const document = {
    paths: {
      '/api/workflows/{id}/diagram': { get: {} },
      '/api/instances/{id}/available-triggers': { get: {} },
      '/api/instances/{instanceId}/triggers': { post: { parameters: [{ name: 'instanceId', in: 'path' }, { name: 'dryRun', in: 'query' }] } },
    },
  };
  expect(capabilitiesFrom(document)).toMatchObject({ diagram: true, availableTriggers: true, dryRun: true });
});

it('does not take a dryRun that is not a query parameter of the instance trigger route', () => {
  const document = { paths: { '/api/triggers': { post: { parameters: [{ name: 'dryRun', in: 'query' }] } }, '/api/instances/{id}/triggers': { post: { parameters: [{ name: 'dryRun', in: 'header' }] } } } };
  expect(capabilitiesFrom(document).dryRun).toBe(false);
});

it('reads a document whose paths leave the /api prefix to its servers', () => {
  const document = {
    servers: [{ url: '/api' }],
    paths: {
      '/workflows/{workflowId}/diagram': { get: {} },
      '/instances/{instanceId}/triggers': { post: { parameters: [{ name: 'dryRun', in: 'query' }] } },
    },
  };
  expect(capabilitiesFrom(document)).toMatchObject({ diagram: true, availableTriggers: false, dryRun: true });
});

it('offers the statuses the instance list accepts, in the console order, and the first wave\'s without a list', () => {
  const document = (values: unknown[]) => ({ paths: { '/instances': { get: { parameters: [{ name: 'status', in: 'query', schema: { enum: values } }] } } } });
  expect(capabilitiesFrom(document(['waiting', 'suspended', 'faulted', 'mystery'])).statuses).toEqual(['waiting', 'suspended', 'faulted']);
  expect(capabilitiesFrom(document([])).statuses).toEqual(firstWaveStatuses);
  expect(firstWaveStatuses).not.toContain('suspended');
});

it('finds suspend and resume only when both routes exist, and the lifecycle events route', () => {
  const suspendOnly = { paths: { '/api/instances/{id}/suspend': { post: {} }, '/api/instances/{id}/events': { get: {} } } };
  expect(capabilitiesFrom(suspendOnly)).toMatchObject({ suspendResume: false, lifecycleEvents: true });
  const both = { paths: { '/api/instances/{id}/suspend': { post: {} }, '/api/instances/{id}/resume': { post: {} } } };
  expect(capabilitiesFrom(both)).toMatchObject({ suspendResume: true, lifecycleEvents: false });
});

it('finds everything the console uses in the document this server serves at /api/openapi.json', () => {
  expect(capabilitiesFrom(buildOpenApiDocument(routes))).toEqual({
    diagram: true,
    availableTriggers: true,
    dryRun: true,
    suspendResume: true,
    lifecycleEvents: true,
    statuses: [...instanceStatuses],
  });
});
