/**
 * `Prefer: wait` on Azure: the durable launcher waits through durable-functions' real DurableClient
 * (waitForCompletionOrCreateCheckStatusResponse → getStatus → HTTP), talking over loopback to a stand-in
 * for the Durable Functions extension's instance-status endpoint (the Functions host is not run here:
 * the status answers are the extension's documented JSON, served by this test).
 */
jest.mock('@azure/functions-core', () => ({ registerFunction: jest.fn(), setProgrammingModel: jest.fn() }), { virtual: true });

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InvocationContext } from '@azure/functions';
import * as df from 'durable-functions';
import { durableLauncher } from '../../functions/app-services';

let extension: Server;
/** Status asks per instance id, and the runtime status each answers with after `runningFor` asks. */
const asks = new Map<string, number>();
const scripts = new Map<string, { runningFor: number; then: string } | 'missing'>();

function statusOf(instanceId: string): { status: number; body?: unknown } {
  const script = scripts.get(instanceId);
  const count = (asks.get(instanceId) ?? 0) + 1;
  asks.set(instanceId, count);
  if (!script || script === 'missing') return { status: 404 };
  const runtimeStatus = count > script.runningFor ? script.then : 'Running';
  const at = new Date(0).toISOString();
  return { status: 200, body: { name: 'triggerOrchestrator', instanceId, createdTime: at, lastUpdatedTime: at, input: { operationId: instanceId }, output: null, runtimeStatus } };
}

beforeAll(async () => {
  extension = createServer((request, response) => {
    const instanceId = decodeURIComponent(new URL(request.url ?? '/', 'http://localhost').pathname.split('/').pop() ?? '');
    const answer = statusOf(instanceId);
    response.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body === undefined ? '' : JSON.stringify(answer.body));
  });
  await new Promise<void>((resolve) => extension.listen(0, '127.0.0.1', resolve));
});

afterAll(async () => {
  await new Promise((resolve) => extension.close(resolve));
});

/** The DurableClient the host would hand an HTTP function, pointed at the stand-in extension. */
function durableClient() {
  const input = df.input.durableClient();
  const context = new InvocationContext({ functionName: 'test', invocationId: 'inv-1', options: { extraInputs: [input] }, logHandler: () => {} });
  const base = `http://127.0.0.1:${(extension.address() as AddressInfo).port}/runtime/webhooks/durabletask/`;
  context.extraInputs.set(input, { taskHubName: 'SignalboxHub', creationUrls: {}, managementUrls: {}, baseUrl: base, rpcBaseUrl: base, requiredQueryStringParameters: '' });
  return df.getClient(context);
}

describe('durable launcher: waitUntilFinished', () => {
  it('is finished once the orchestration completes within the wait, asking for its status until then', async () => {
    scripts.set('op-done', { runningFor: 3, then: 'Completed' });
    await expect(durableLauncher(durableClient()).waitUntilFinished!('op-done', 5000)).resolves.toBe('finished');
    expect(asks.get('op-done')).toBe(4);
  });

  it('treats a failed or terminated orchestration as finished: the operation record says the rest', async () => {
    scripts.set('op-failed', { runningFor: 0, then: 'Failed' });
    scripts.set('op-terminated', { runningFor: 1, then: 'Terminated' });
    const launcher = durableLauncher(durableClient());
    await expect(launcher.waitUntilFinished!('op-failed', 5000)).resolves.toBe('finished');
    await expect(launcher.waitUntilFinished!('op-terminated', 5000)).resolves.toBe('finished');
  });

  it('is pending when the wait runs out first', async () => {
    scripts.set('op-slow', { runningFor: Number.POSITIVE_INFINITY, then: 'Completed' });
    await expect(durableLauncher(durableClient()).waitUntilFinished!('op-slow', 350)).resolves.toBe('pending');
    expect(asks.get('op-slow')).toBeGreaterThanOrEqual(2);
  });

  it('is unknown when there is no orchestration, so the route reads the record instead', async () => {
    scripts.set('op-missing', 'missing');
    await expect(durableLauncher(durableClient()).waitUntilFinished!('op-missing', 1000)).resolves.toBe('unknown');
  });
});
