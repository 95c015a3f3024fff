/**
 * `signalbox retry` (issue 38, section 3): the real binary against a real local server on Azurite, with a
 * service on loopback that is missing (404) until it is deployed. `why` names the command; the retry
 * applies the trigger that faulted once; a second is refused, naming why.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { startTestHost, type TestHost } from '../support/local-host';
import { signalbox } from './run-signalbox';

let service: Server;
let deployed = false;
let test: TestHost;
let env: Record<string, string>;
let serviceUrl: string;

beforeAll(async () => {
  service = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      // Lifecycle-event subscribers: one down (503, retried later), one refusing (400, dead-lettered at once).
      if (request.url === '/hook-down') return void response.writeHead(503).end();
      if (request.url === '/hook-refuses') return void response.writeHead(400).end();
      response.writeHead(deployed ? 204 : 404).end();
    });
  });
  await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', resolve));
  serviceUrl = `http://127.0.0.1:${(service.address() as AddressInfo).port}`;
  const url = `${serviceUrl}/pay`;
  test = await startTestHost('retrycli', { env: { SIGNALBOX_ALLOWED_HOSTS: '127.0.0.1' } });
  env = { SIGNALBOX_URL: `${test.host.url}/api` };
  const definition = {
    id: 'refunds',
    displayName: 'Refunds',
    initialStateId: 'asked',
    states: {
      asked: {
        interests: ['day:{{context.day}}'],
        transitions: [{ id: 'pay', targetStateId: 'paid', conditions: [{ type: 'triggerName', name: 'Pay' }], actions: [{ type: 'invokeExternalService', url }] }],
      },
      paid: {},
    },
  };
  expect((await test.api.request('PUT', '/api/workflows/refunds', { json: definition })).status).toBe(201);
  for (const instanceId of ['r1', 'r2', 'r3'])
    expect((await test.api.request('POST', '/api/instances', { json: { workflowId: 'refunds', instanceId, context: { day: instanceId === 'r1' ? 'mon' : 'tue' } } })).status).toBe(201);
  expect((await test.api.request('POST', '/api/instances/r1/triggers', { json: { id: 'pay-r1', name: 'Pay' }, headers: { prefer: 'wait=30' } })).status).toBe(200);
  expect((await test.api.request('POST', '/api/triggers', { json: { id: 'pay-tue', name: 'Pay', subjects: ['day:tue'] }, headers: { prefer: 'wait=30' } })).status).toBe(200);
});

afterAll(async () => {
  await test?.host.stop();
  await new Promise((resolve) => service?.close(resolve));
});

it('an operation whose instances all faulted says "completed with faults" and counts them; operations list filters by outcome', async () => {
  const watched = await signalbox(['watch', 'pay-tue', '--no-progress'], { env });
  // Exit 5: it ran, and its instances faulted.
  expect(watched.exitCode).toBe(5);
  expect(watched.stdout).toContain('Operation pay-tue completed with faults (2 faulted): 2 of 2 instances processed');
  expect(watched.stdout).not.toMatch(/pay-tue succeeded/);
  const listed = await signalbox(['operations', 'list', '--outcome', 'completedWithFaults'], { env });
  expect(listed.exitCode).toBe(0);
  expect(listed.stdout).toMatch(/pay-tue .*completed with faults \(2 faulted\)/);
  const json = JSON.parse((await signalbox(['operations', 'list', '--outcome', 'completedWithFaults', '--json'], { env })).stdout);
  expect(json.items.map((operation: { id: string }) => operation.id).sort()).toEqual(['pay-r1', 'pay-tue']);
  expect(json.items.find((operation: { id: string }) => operation.id === 'pay-tue')).toMatchObject({ status: 'succeeded', outcome: 'completedWithFaults', faulted: 2 });
  expect(JSON.parse((await signalbox(['operations', 'list', '--outcome', 'succeeded', '--json'], { env })).stdout).items).toEqual([]);
});

it('why and instance name the retry; retry applies the trigger once; a second retry is refused', async () => {
  const why = await signalbox(['why', 'r1'], { env });
  expect(why.exitCode).toBe(0);
  expect(why.stdout).toContain('applying trigger pay-r1');
  expect(why.stdout).toContain('  retry (once what failed is fixed): signalbox retry r1');
  expect(why.stdout).toContain('       or: POST /api/instances/r1/retry');
  expect((await signalbox(['instance', 'r1'], { env })).stdout).toContain('signalbox retry r1 (applies trigger pay-r1 again, once)');

  deployed = true;
  const retried = await signalbox(['retry', 'r1', '--wait', '--no-progress'], { env });
  expect(retried).toMatchObject({ exitCode: 0, stderr: '' });
  expect(retried.stdout).toMatch(/transitioned 1/);
  expect(JSON.parse((await signalbox(['instance', 'r1', '--json'], { env })).stdout)).toMatchObject({ status: 'complete', stateId: 'paid' });

  const again = await signalbox(['retry', 'r1'], { env });
  expect(again.exitCode).not.toBe(0);
  expect(again.stderr).toContain('is complete, not faulted: only a faulted instance can be retried');
  const usage = await signalbox(['retry'], { env });
  expect(usage.exitCode).not.toBe(0);
  expect(usage.stderr).toContain('retry needs an instance id, or --operation <operationId>');
});

it("retry --operation retries every instance a trigger's operation faulted", async () => {
  deployed = true;
  const retried = await signalbox(['retry', '--operation', 'pay-tue', '--wait', '--no-progress', '--json'], { env });
  expect(retried.exitCode).toBe(0);
  expect(JSON.parse(retried.stdout)).toMatchObject({ bulk: { action: 'retry', filter: { faultTriggerId: 'pay-tue' } }, summary: { transitioned: 2 } });
  for (const id of ['r2', 'r3']) expect(JSON.parse((await signalbox(['instance', id, '--json'], { env })).stdout)).toMatchObject({ status: 'complete' });
});

it("push prints the server's warnings: a host not on its allow-list, whose every call would fault", async () => {
  const path = join(mkdtempSync(join(tmpdir(), 'retry-cli-')), 'payments.json');
  const definition = {
    id: 'payments-elsewhere',
    displayName: 'Payments elsewhere',
    initialStateId: 'asked',
    states: {
      asked: {
        transitions: [{ id: 'pay', targetStateId: 'paid', conditions: [{ type: 'triggerName', name: 'Pay' }], actions: [{ type: 'invokeExternalService', url: 'https://payments.example/pay' }] }],
      },
      paid: {},
    },
  };
  writeFileSync(path, JSON.stringify(definition));
  const pushed = await signalbox(['push', path], { env });
  expect(pushed.exitCode).toBe(0);
  expect(pushed.stdout).toContain('payments-elsewhere: created, version 1');
  expect(pushed.stderr).toContain('states.asked.transitions[0].actions[0].url: hostNotAllowed: every call of this step would fault');
  expect(pushed.stderr).toContain('every instance reaching this step will fault until the host is allowed');
  const json = JSON.parse((await signalbox(['push', path, '--force', '--json'], { env })).stdout);
  expect(json[0].warnings).toEqual([expect.objectContaining({ code: 'hostNotAllowed', path: 'states.asked.transitions[0].actions[0].url' })]);
});

it('instance and why show failing event deliveries, with the next attempt time, and redeliver delivers a dead-lettered one again', async () => {
  const notify = {
    id: 'notify',
    displayName: 'Notify',
    initialStateId: 'open',
    subscriptions: [
      { id: 'down', url: `${serviceUrl}/hook-down` },
      { id: 'refuses', url: `${serviceUrl}/hook-refuses` },
    ],
    states: { open: { transitions: [{ id: 'close', targetStateId: 'closed', conditions: [{ type: 'triggerName', name: 'Close' }] }] }, closed: {} },
  };
  expect((await test.api.request('PUT', '/api/workflows/notify', { json: notify })).status).toBe(201);
  expect((await test.api.request('POST', '/api/instances', { json: { workflowId: 'notify', instanceId: 'n1' } })).status).toBe(201);
  // Both deliveries of `created` are attempted once (the one down waits a minute for its next attempt).
  let events: Array<{ id: string; deliveries: Array<{ subscriptionId: string; status: string; attempts: number; nextAttemptAt?: string }> }> = [];
  for (let poll = 0; poll < 400; poll++) {
    events = (await test.api.request('GET', '/api/instances/n1/events')).body.items;
    if (events[0]?.deliveries.every((delivery) => delivery.attempts > 0)) break;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  const created = events[0]!;
  const down = created.deliveries.find((delivery) => delivery.subscriptionId === 'down')!;
  expect(down).toMatchObject({ status: 'pending', attempts: 1, nextAttemptAt: expect.any(String) });
  expect(created.deliveries.find((delivery) => delivery.subscriptionId === 'refuses')).toMatchObject({ status: 'deadLettered', attempts: 1 });

  const shown = await signalbox(['instance', 'n1'], { env });
  expect(shown.exitCode).toBe(0);
  expect(shown.stdout).toContain(`event ${created.id} (created) to down: failing after 1 attempt: the subscriber answered 503`);
  expect(shown.stdout).toContain(`  next attempt at ${down.nextAttemptAt}`);
  expect(shown.stdout).toContain(`event ${created.id} (created) to refuses: dead-lettered after 1 attempt: the subscriber answered 400`);
  expect(shown.stdout).toContain(`  redeliver: signalbox redeliver n1 ${created.id}`);
  expect((await signalbox(['why', 'n1'], { env })).stdout).toContain(`  redeliver: signalbox redeliver n1 ${created.id}`);

  const redelivered = await signalbox(['redeliver', 'n1', created.id], { env });
  expect(redelivered).toMatchObject({ exitCode: 0, stderr: '' });
  expect(redelivered.stdout).toContain('its dead-lettered deliveries are pending again');
});
