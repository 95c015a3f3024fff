/**
 * Issue 42, defect 2: triggers accepted (202) on a key with a concurrency limit, the local server SIGKILLed
 * while it works through them and started again on the same storage, nothing sent again. The promise: every
 * accepted trigger is applied exactly once, within a bounded time, and the key's view ends with nothing
 * running and nothing queued. Before the fix 22 of 240 were never applied and the key's view showed 18-19
 * queued, unchanged for minutes.
 */
import type { ChildProcess } from 'node:child_process';
import { freePort } from '../../src/host/local/azurite';
import { createAzureStorage } from '../../src/storage/create-azure-storage';
import { prefixedStorageNames } from '../../src/storage/names';
import { appliedTriggerCounts } from '../support/applied-triggers';
import { startInFlightService, type InFlightService } from '../support/in-flight-service';
import { startServerProcess } from '../support/server-process';
import { testConnectionString, uniquePrefix } from '../support/storage';
import { httpClient } from './http-client';

/**
 * Sized for the suite; FLOW_CRASH_TRIGGERS and FLOW_CRASH_INSTANCES scale it up (the attack sent 240). A long
 * `maxWait` keeps the dead process's listings in the queue for the whole run, as the attack's did.
 */
const TRIGGERS = Number(process.env.FLOW_CRASH_TRIGGERS ?? 60);
const INSTANCES = Number(process.env.FLOW_CRASH_INSTANCES ?? 60);
const LIMIT = 1;
const BUDGET_MS = Number(process.env.FLOW_CRASH_BUDGET_MS ?? 240_000);
jest.setTimeout(BUDGET_MS);

describe('accepted triggers on a concurrency-limited key survive a SIGKILL', () => {
  let external: InFlightService;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    external = await startInFlightService(LIMIT, 5);
  });

  afterAll(async () => {
    for (const child of children) child.kill('SIGKILL');
    await external.close();
  });

  it('applies every accepted trigger exactly once after the restart, and the key ends empty', async () => {
    const externalUrl = external.url;
    const prefix = uniquePrefix('flowacc');
    const env = { SIGNALBOX_STORAGE: testConnectionString(), SIGNALBOX_STORAGE_PREFIX: prefix, SIGNALBOX_ALLOWED_HOSTS: '127.0.0.1', PORT: String(await freePort()) };
    let server = await startServerProcess(env);
    children.push(server.child);
    let api = httpClient(server.url);
    const workflow = {
      id: 'limited',
      displayName: 'Limited',
      initialStateId: 'open',
      flow: { concurrency: { key: 'context.customer', limit: LIMIT, maxWait: process.env.FLOW_CRASH_MAX_WAIT ?? 'PT5M' } },
      states: {
        open: {
          transitions: [
            {
              id: 'work',
              targetStateId: 'open',
              conditions: [{ type: 'triggerName', name: 'Work' }],
              actions: [{ type: 'invokeExternalService', id: 'call', url: externalUrl, contextItemsToInclude: ['customer'] }],
            },
          ],
        },
      },
    };
    expect((await api.request('PUT', '/api/workflows/limited', { json: workflow })).status).toBe(201);
    const instanceIds = Array.from({ length: INSTANCES }, (_, index) => `i-${index}`);
    for (const instanceId of instanceIds) {
      expect((await api.request('POST', '/api/instances', { json: { workflowId: 'limited', instanceId, context: { customer: 'c1' } } })).status).toBe(201);
    }
    const triggers = Array.from({ length: TRIGGERS }, (_, index) => ({ id: `w-${index}`, name: 'Work', subjects: [instanceIds[index % INSTANCES]!] }));
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < triggers.length) {
          const trigger = triggers[next++]!;
          const answer = await api.request('POST', '/api/triggers', { json: trigger });
          expect(answer.status).toBe(202);
        }
      }),
    );
    // Killed while it works through them: with a limit of 1 on one key, most are still waiting.
    const storage = await createAzureStorage({ connection: testConnectionString(), names: prefixedStorageNames(prefix), createIfMissing: false });
    const appliedCount = () => appliedTriggerCounts(storage.history, instanceIds, 'w-');
    while ((await appliedCount()).size < TRIGGERS / 6) await new Promise((resolve) => setTimeout(resolve, 100));
    if (process.env.FLOW_CRASH_VERBOSE) console.info(`${new Date().toISOString()} killing`);
    const killed = server.child;
    killed.kill('SIGKILL');
    await new Promise((resolve) => killed.once('exit', resolve));
    const appliedBeforeKill = (await appliedCount()).size;
    server = await startServerProcess(env);
    children.push(server.child);
    api = httpClient(server.url);

    const deadline = Date.now() + BUDGET_MS - 60_000;
    let seen = await appliedCount();
    for (let poll = 0; seen.size < TRIGGERS && Date.now() < deadline; poll++) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      seen = await appliedCount();
      if (process.env.FLOW_CRASH_VERBOSE && poll % 10 === 0)
        console.info(`${new Date().toISOString()} applied ${seen.size}: ${(await api.request('GET', '/api/flow/limited/keys/c1')).text.slice(0, 300)}`);
    }
    const lost = triggers.filter((trigger) => !seen.has(trigger.id)).length;
    const doubled = [...seen.values()].filter((count) => count > 1).length;
    const view = await api.request('GET', '/api/flow/limited/keys/c1');
    console.info(
      `flow crash run: ${TRIGGERS} accepted, ${appliedBeforeKill} applied before the kill, ${lost} lost, ${doubled} doubled, ${external.violations()} limit violations; key view ${view.text}`,
    );
    expect({ lost, doubled, violations: external.violations() }).toEqual({ lost: 0, doubled: 0, violations: 0 });
    // The key's view settles with nothing running and nothing queued.
    let settled = view.body;
    for (let poll = 0; poll < 120 && (settled.running?.length || settled.queued?.length); poll++) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      settled = (await api.request('GET', '/api/flow/limited/keys/c1')).body;
    }
    expect({ running: settled.running, queued: settled.queued }).toEqual({ running: [], queued: [] });
  });
});
