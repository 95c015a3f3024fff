/**
 * Two local servers (child processes) on one storage, a workflow with `flow.concurrency` limit 1 per
 * customer, thousands of triggers on hundreds of keys sent to both, and one server SIGKILLed in the middle
 * and started again (triggers of 100 subjects each, so every operation fans out over instances of many keys). An external service the workflow calls counts the calls in flight per key: never more
 * than the limit. Every history is read at the end: every trigger applied exactly once, none lost, none
 * doubled.
 */
import type { ChildProcess } from 'node:child_process';
import { collectAll } from '../../src/testing';
import { onePage } from '../../src/engine/ports';
import { freePort } from '../../src/host/local/azurite';
import { createAzureStorage } from '../../src/storage/create-azure-storage';
import { prefixedStorageNames } from '../../src/storage/names';
import { startInFlightService, type InFlightService } from '../support/in-flight-service';
import { startServerProcess } from '../support/server-process';
import { testConnectionString, uniquePrefix } from '../support/storage';
import { httpClient } from './http-client';

/**
 * Sized for a 2-core machine shared by several suites (300 applications on 50 keys); FLOW_TEST_KEYS (a multiple
 * of 50) and FLOW_TEST_ROUNDS scale it up to thousands on hundreds of keys.
 */
const KEYS = Number(process.env.FLOW_TEST_KEYS ?? 50);
const INSTANCES_PER_KEY = 2;
const INSTANCES = KEYS * INSTANCES_PER_KEY;
/** Each round offers every instance one trigger. */
const ROUNDS = Number(process.env.FLOW_TEST_ROUNDS ?? 3);
const SUBJECTS_PER_TRIGGER = Math.min(100, INSTANCES);
/** Trigger applications: one per instance per round. */
const TRIGGERS = INSTANCES * ROUNDS;
const LIMIT = 1;
const KILL_AFTER = Math.max(1, Math.floor((ROUNDS * (INSTANCES / SUBJECTS_PER_TRIGGER)) / 3));
/**
 * Child processes and a kill: a longer budget than jest's default on a loaded machine, growing with the
 * number of applications when the settings scale the run up (the suite's size keeps 240 s).
 */
const BUDGET_MS = Math.max(240_000, TRIGGERS * 300);
jest.setTimeout(BUDGET_MS);

describe('flow.concurrency across two servers with a SIGKILL', () => {
  let external: InFlightService;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    external = await startInFlightService(LIMIT, 3);
  });

  afterAll(async () => {
    for (const child of children) child.kill('SIGKILL');
    await external.close();
  });

  it('never runs more than the limit per key, and applies every trigger exactly once', async () => {
    const externalUrl = external.url;
    const prefix = uniquePrefix('flowkill');
    const base = { SIGNALBOX_STORAGE: testConnectionString(), SIGNALBOX_STORAGE_PREFIX: prefix, SIGNALBOX_ALLOWED_HOSTS: '127.0.0.1' };
    const envA = { ...base, PORT: String(await freePort()) };
    const envB = { ...base, PORT: String(await freePort()) };
    let a = await startServerProcess(envA);
    children.push(a.child);
    const b = await startServerProcess(envB);
    children.push(b.child);
    let apiA: ReturnType<typeof httpClient> | undefined = httpClient(a.url);
    const apiB = httpClient(b.url);

    const workflow = {
      id: 'limited',
      displayName: 'Limited',
      initialStateId: 'open',
      flow: { concurrency: { key: 'context.customer', limit: LIMIT } },
      states: {
        open: {
          transitions: [
            {
              id: 'work',
              targetStateId: 'open',
              conditions: [{ type: 'triggerName', name: 'Work' }],
              actions: [
                { type: 'invokeExternalService', id: 'call', url: externalUrl, contextItemsToInclude: ['customer'] },
                { type: 'setContext', expressions: { count: 'context.count + 1' } },
              ],
            },
          ],
        },
      },
    };
    expect((await apiB.request('PUT', '/api/workflows/limited', { json: workflow })).status).toBe(201);
    const instanceIds = Array.from({ length: INSTANCES }, (_, index) => `i-${index}`);
    await inBatches(instanceIds, 40, async (instanceId, index) => {
      const created = await apiB.request('POST', '/api/instances', { json: { workflowId: 'limited', instanceId, context: { customer: `c${index % KEYS}`, count: 0 } } });
      expect(created.status).toBe(201);
    });

    if (process.env.FLOW_TEST_VERBOSE) console.info(`${new Date().toISOString()} created`);
    // Each round sends every instance one trigger: triggers of 100 subjects each (so an operation fans out
    // over instances of many keys at once, and both instances of a key contend), alternating servers; one
    // the kill interrupts is sent again, with the same id, to the other server.
    const triggers = Array.from({ length: ROUNDS * (INSTANCES / SUBJECTS_PER_TRIGGER) }, (_, index) => {
      const first = (index * SUBJECTS_PER_TRIGGER) % INSTANCES;
      return { id: `w-${index}`, name: 'Work', subjects: instanceIds.slice(first, first + SUBJECTS_PER_TRIGGER) };
    });
    let sent = 0;
    let killing: Promise<void> | undefined;
    await inBatches(triggers, 4, async (trigger, index) => {
      for (let attempt = 0; ; attempt++) {
        const api = index % 2 === 0 && apiA && attempt === 0 ? apiA : apiB;
        try {
          const answer = await api.request('POST', '/api/triggers', { json: trigger });
          expect([200, 202]).toContain(answer.status);
          break;
        } catch (error) {
          if (attempt >= 5) throw error;
        }
      }
      sent += 1;
      if (sent === KILL_AFTER) {
        // Once the servers are busy with the first triggers: the kill lands in the middle of operations.
        await new Promise((resolve) => setTimeout(resolve, 1000));
        const killed = a;
        apiA = undefined;
        killed.child.kill('SIGKILL');
        killing = (async () => {
          await new Promise((resolve) => killed.child.once('exit', resolve));
          // Started again on the same storage: it resumes the operations it had accepted.
          a = await startServerProcess(envA);
          children.push(a.child);
          apiA = httpClient(a.url);
        })();
      }
    });
    await killing;
    if (process.env.FLOW_TEST_VERBOSE) console.info(`${new Date().toISOString()} all sent`);

    const storage = await createAzureStorage({ connection: testConnectionString(), names: prefixedStorageNames(prefix), createIfMissing: false });
    const deadline = Date.now() + BUDGET_MS - 60_000;
    let applied = 0;
    while (Date.now() < deadline) {
      const instances = await collectAll((options) => onePage(storage.instances.query({ workflowId: 'limited' }, options)));
      applied = instances.reduce((sum, instance) => sum + Number(instance.context.count), 0);
      if (process.env.FLOW_TEST_VERBOSE) console.info(`${new Date().toISOString()} applied ${applied}`);
      if (applied >= TRIGGERS) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }

    // Every history, counted: each trigger once on each of its instances.
    const seen = new Map<string, number>();
    await inBatches(instanceIds, 20, async (instanceId) => {
      const history = await collectAll((options) => onePage(storage.history.list(instanceId, options)));
      for (const entry of history) if (entry.triggerId?.startsWith('w-')) seen.set(`${entry.triggerId}@${instanceId}`, (seen.get(`${entry.triggerId}@${instanceId}`) ?? 0) + 1);
    });
    const lost = triggers.flatMap((trigger) => trigger.subjects.map((subject) => `${trigger.id}@${subject}`)).filter((delivery) => !seen.has(delivery)).length;
    const doubled = [...seen.values()].filter((count) => count > 1).length;
    // The figures, for the report.
    console.info(
      `flow two-server run: ${triggers.length} triggers, ${TRIGGERS} applications, ${KEYS} keys, limit ${LIMIT}: ${external.calls()} calls, ${external.violations()} limit violations, ${lost} lost, ${doubled} doubled`,
    );
    expect({ violations: external.violations(), lost, doubled, applied }).toEqual({ violations: 0, lost: 0, doubled: 0, applied: TRIGGERS });
    expect(external.calls()).toBeGreaterThanOrEqual(TRIGGERS);
  });
});

/** Runs `work` over `items`, at most `width` at a time. */
async function inBatches<T>(items: readonly T[], width: number, work: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) {
        const index = next++;
        await work(items[index]!, index);
      }
    }),
  );
}
