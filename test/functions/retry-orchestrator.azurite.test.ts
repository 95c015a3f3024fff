/**
 * A retry of faults on the Azure side (issue 38, section 3): `POST /api/instances/{id}/retry` records a bulk
 * `retry` operation, and the operation orchestrator runs it on the real durable-functions replay engine
 * (test/support/durable-replay.ts) with the REAL activities against Azurite. The activity that applies the
 * retry loses its answer once (the worker died after the save): durable retries it, and the trigger is
 * still applied once, the operation reporting what it did.
 */
jest.mock('@azure/functions-core', () => ({ registerFunction: jest.fn(), setProgrammingModel: jest.fn() }), { virtual: true });

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { activityHandlers } from '../../functions/activities';
import { APPLY_OPERATION_BATCH, applyOperationBatch } from '../../functions/apply-operation-batch';
import { OPERATION_ORCHESTRATOR, operationOrchestrator } from '../../functions/operation-orchestrator';
import { createAzurePorts } from '../../src/host/azure-ports';
import type { OperationActivities } from '../../src/host/contracts/operation-activities';
import { createHostCore, type HostCore } from '../../src/host/host-services';
import { matchRoute } from '../../src/host/http/routes';
import type { ApiResponse, ApiServices } from '../../src/host/http/types';
import { silentLogger } from '../../src/host/local/logger';
import type { OperationLauncher } from '../../src/host/trigger-submitter';
import { prefixedStorageNames } from '../../src/storage/names';
import { runOrchestration } from '../support/durable-replay';
import { testConnectionString, uniquePrefix } from '../support/storage';

let core: HostCore;
let services: ApiServices;
let activities: OperationActivities;
let service: Server;
const carrier = { up: false, calls: 0 };

async function call(method: string, path: string, body?: unknown): Promise<ApiResponse & { body: any }> {
  const url = new URL(`http://localhost/api/${path}`);
  const { match } = matchRoute(method, url.pathname.slice('/api/'.length));
  if (!match) throw new Error(`No route for ${method} ${path}`);
  const headers = new Headers(body === undefined ? {} : { 'content-type': 'application/json' });
  const response = await match.route.handle(
    { method, url, params: match.params, headers: { get: (name) => headers.get(name) }, bodyText: body === undefined ? undefined : JSON.stringify(body), tenantId: 'default' },
    services,
  );
  return response as ApiResponse & { body: any };
}

beforeAll(async () => {
  service = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      carrier.calls += 1;
      response.writeHead(carrier.up ? 204 : 404).end();
    });
  });
  await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', resolve));
  const env = { SIGNALBOX_STORAGE: testConnectionString(), SIGNALBOX_ALLOWED_HOSTS: '127.0.0.1' };
  const ports = await createAzurePorts({ env, names: prefixedStorageNames(uniquePrefix('fr')) });
  core = createHostCore({ ports, logger: silentLogger, env });
  const launcher: OperationLauncher = { start: async () => undefined };
  services = core.servicesFor(launcher);
  activities = core.activitiesFor(launcher);
  const definition = {
    id: 'parcels',
    displayName: 'Parcels',
    initialStateId: 'packed',
    states: {
      packed: {
        transitions: [
          {
            id: 'ship',
            targetStateId: 'shipped',
            conditions: [{ type: 'triggerName', name: 'Ship' }],
            actions: [{ type: 'invokeExternalService', url: `http://127.0.0.1:${(service.address() as AddressInfo).port}/ship` }],
          },
        ],
      },
      shipped: {},
    },
  };
  expect((await call('PUT', 'workflows/parcels', definition)).status).toBe(201);
}, 120_000);

afterAll(async () => {
  await new Promise((resolve) => service?.close(resolve));
});

it('runs a retry through the durable orchestrator: an activity retried after its lost answer applies the trigger once', async () => {
  expect((await call('POST', 'instances', { workflowId: 'parcels', instanceId: 'p1' })).status).toBe(201);
  expect(await core.engine.applyTrigger('p1', { id: 'ship-p1', name: 'Ship', subjects: ['p1'] })).toMatchObject({ outcome: 'faulted' });
  carrier.up = true;
  const accepted = await call('POST', 'instances/p1/retry');
  expect(accepted.status).toBe(202);
  const operationId: string = accepted.body.operationId;

  const handlers = activityHandlers(activities);
  let lost = 0;
  const run = await runOrchestration(OPERATION_ORCHESTRATOR, { operationId }, operationId, {
    orchestrators: { [OPERATION_ORCHESTRATOR]: operationOrchestrator, [APPLY_OPERATION_BATCH]: applyOperationBatch },
    activities: {
      ...handlers,
      // The first application saves, then its worker dies before answering: durable calls it again.
      applyTrigger: async (input: unknown) => {
        const answer = await handlers.applyTrigger!(input);
        if (lost++ === 0) throw new Error('the worker died after the save');
        return answer;
      },
    },
    maxConcurrentActivities: 4,
  });
  expect(run.status).toBe('completed');
  expect(lost).toBe(2);
  expect(carrier.calls).toBe(2); // the fault's call, and the retry's once
  const operation = (await call('GET', `operations/${operationId}`)).body;
  expect(operation).toMatchObject({ kind: 'bulk', status: 'succeeded', candidates: 1, summary: { transitioned: 1, skipped: 0 } });
  expect(operation.instances).toMatchObject([{ instanceId: 'p1', outcome: 'transitioned', toStateId: 'shipped' }]);
  expect((await call('GET', 'instances/p1')).body).toMatchObject({ status: 'complete', stateId: 'shipped' });
  const history = (await call('GET', 'instances/p1/history')).body.items;
  expect(history.map((entry: { event: string }) => entry.event)).toEqual(['created', 'faulted', 'transitioned']);
  expect(history[2]).toMatchObject({ triggerId: 'ship-p1', operationId });
}, 120_000);
