/**
 * The proof of tenant isolation: two tenants with the same workflow and instance ids on one local server,
 * and thousands of requests generated from a seed (every route of the route table, so a new route joins
 * the mix by itself) sent with a token for tenant A only, to A's paths, to B's and to the default
 * tenant's, with ids of both tenants. Tenant A's workflows raise triggers, start children and wait on
 * timers, and the mix migrates, deletes and sends events. After every batch tenant B's storage is dumped
 * and compared with its dump before the fuzz (untouched), and no response may carry a value only B's
 * data holds (unseen). The seed is printed, so a leak can be replayed.
 */
import { routes } from '../../src/host/http/routes';
import { tenantStorageNames, type StorageNames } from '../../src/storage/names';
import { httpClient, type HttpResult } from '../host/http-client';
import { startTestHost, type TestHost } from '../support/local-host';
import { startLocalIssuer, type LocalIssuer } from '../support/local-issuer';
import { uniquePrefix } from '../support/storage';
import { dumpTenantStorage, tenantOrderWorkflow, tenantParcelWorkflow } from '../support/tenant-storage';

const seed = Number(process.env.SIGNALBOX_FUZZ_SEED ?? 20261126);
const requestCount = Number(process.env.SIGNALBOX_FUZZ_REQUESTS ?? 2000);
/** Requests in flight together; B is checked after each batch. */
const batchSize = 8;

/** mulberry32: small, seeded, deterministic. */
function prng(state: number): () => number {
  let value = state >>> 0;
  return () => {
    value = (value + 0x6d2b79f5) >>> 0;
    let mixed = value;
    mixed = Math.imul(mixed ^ (mixed >>> 15), mixed | 1);
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61);
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
}

const tenantA = `fa-${uniquePrefix('t').toLowerCase()}`;
const tenantB = `fb-${uniquePrefix('t').toLowerCase()}`;
/** Values only tenant B's data holds: the fuzzer never sends them, so any response carrying one is a leak. */
const markerOfB = `leakmarker${uniquePrefix('b').toLowerCase()}`;

const order = tenantOrderWorkflow;
const parcel = tenantParcelWorkflow;

const workflowIds = ['order', 'parcel', 'only-b', 'nope'];
const instanceIds = ['o1', 'o2', 'o3', 'o1-parcel', 'o2-parcel', 'b-only-1', 'fresh', 'nope'];
const triggerNames = ['Go', 'Ping', 'Stop', 'Other'];

/** Every row of every table of a tenant and every blob of its container, for comparison. */
const dump = async (names: StorageNames) => JSON.stringify(await dumpTenantStorage(names));

interface GeneratedRequest {
  readonly route: string;
  readonly method: string;
  readonly path: string;
  readonly json?: unknown;
  readonly headers?: Record<string, string>;
}

/** A request for `route` from the seeded generator: its parameters from both tenants' ids, its prefix one of A's, B's or none. */
function generate(random: () => number, route: (typeof routes)[number], tenantIds: readonly string[]): GeneratedRequest {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const method = pick(route.methods);
  const params: Record<string, string> = {};
  const path = route.route.replace(/\{(\w+)\}/g, (_whole, name: string) => {
    const value =
      name === 'workflowId'
        ? pick(workflowIds)
        : name === 'instanceId'
          ? pick(instanceIds)
          : name === 'tenantId'
            ? pick(tenantIds)
            : name === 'operationId'
              ? pick(['go-1', 'go-2', 'op-b', 'nope'])
              : pick(['k1', 'e1', 'nope']);
    params[name] = value;
    return encodeURIComponent(value);
  });
  const prefix = pick([`/api/tenants/${tenantA}/`, `/api/tenants/${tenantA}/`, `/api/tenants/${tenantB}/`, '/api/']);
  const instanceId = pick(instanceIds);
  const workflowId = pick(workflowIds.slice(0, 2));
  const bodies: Record<string, () => unknown> = {
    putWorkflow: () => (params.workflowId === 'parcel' ? parcel('a') : { ...order('a'), id: params.workflowId }),
    createWorkflow: () => order('a'),
    validateWorkflow: () => order('a'),
    migrateInstances: () => ({ fromVersion: 1 + Math.floor(random() * 2), toVersion: 1 + Math.floor(random() * 3), dryRun: random() < 0.5 }),
    putFlowKeyLimit: () => ({ limit: random() < 0.5 ? null : 2 }),
    createInstance: () => ({ workflowId, instanceId, context: { owner: 'a' } }),
    sendInstanceTrigger: () => ({ name: pick(triggerNames) }),
    sendTrigger: () => ({ id: `go-${Math.floor(random() * 3)}`, name: pick(triggerNames), subjects: [instanceId] }),
    recoverInstance: () => ({ stateId: pick(['open', 'waiting']) }),
    bulkInstances: () => ({ action: pick(['cancel', 'suspend', 'resume', 'delete', 'reindex']), filter: { workflowId }, dryRun: random() < 0.3 }),
    putTenant: () => ({}),
  };
  const makeBody = bodies[route.name] ?? (() => (random() < 0.5 ? {} : { anything: instanceId }));
  const json = method === 'GET' || method === 'DELETE' ? undefined : random() < 0.1 ? { garbage: true } : makeBody();
  const headers = random() < 0.2 && route.name.toLowerCase().includes('trigger') ? { prefer: 'wait=1' } : undefined;
  return { route: route.name, method, path: `${prefix}${path}`, ...(json !== undefined ? { json } : {}), ...(headers ? { headers } : {}) };
}

let issuer: LocalIssuer;
let test: TestHost;
let admin: ReturnType<typeof httpClient>;

beforeAll(async () => {
  issuer = await startLocalIssuer({ audience: 'api://signalbox' });
  test = await startTestHost('tfuzz', {
    env: {
      SIGNALBOX_AUTH_ISSUERS: issuer.issuer,
      SIGNALBOX_AUTH_AUDIENCE: 'api://signalbox',
      SIGNALBOX_API_KEY: 'the-key',
      SIGNALBOX_API_KEY_ROLES: 'Signalbox.Admin,Signalbox.TenantAdmin',
      SIGNALBOX_API_KEY_TENANTS: '*',
    },
  });
  admin = httpClient(test.host.url, { 'x-functions-key': 'the-key' });
  for (const [tenant, marker] of [
    [tenantA, 'a'],
    [tenantB, markerOfB],
  ] as const) {
    expect((await admin.request('PUT', `/api/tenants/${tenant}`, { json: {} })).status).toBe(201);
    expect((await admin.request('PUT', `/api/tenants/${tenant}/workflows/order`, { json: order(marker) })).status).toBe(201);
    expect((await admin.request('PUT', `/api/tenants/${tenant}/workflows/parcel`, { json: parcel(marker) })).status).toBe(201);
    for (const id of ['o1', 'o2', 'o3'])
      expect((await admin.request('POST', `/api/tenants/${tenant}/instances`, { json: { workflowId: 'order', instanceId: id, context: { owner: marker } } })).status).toBe(201);
  }
  expect((await admin.request('PUT', `/api/tenants/${tenantB}/workflows/only-b`, { json: { ...parcel(markerOfB), id: 'only-b' } })).status).toBe(201);
  expect(
    (await admin.request('POST', `/api/tenants/${tenantB}/instances`, { json: { workflowId: 'only-b', instanceId: 'b-only-1', businessKey: markerOfB, context: { owner: markerOfB } } })).status,
  ).toBe(201);
  // B runs its own trigger, child and timer to the end before the fuzz, so its storage is at rest.
  expect((await admin.request('POST', `/api/tenants/${tenantB}/triggers`, { json: { id: 'go-1', name: 'Go', subjects: ['o1'] } })).status).toBe(202);
  let stateOfB = '';
  for (let poll = 0; poll < 600 && stateOfB !== 'done'; poll += 1) {
    stateOfB = (await admin.request('GET', `/api/tenants/${tenantB}/instances/o1`)).body?.stateId;
    if (stateOfB !== 'done') await new Promise((resolve) => setTimeout(resolve, 50));
  }
  expect(stateOfB).toBe('done');
}, 180_000);

afterAll(async () => {
  await test?.host.stop();
  await issuer?.close();
});

describe('cross-tenant fuzz', () => {
  it("answers a public route below an existing tenant's path exactly as below a missing one's, so no one learns it exists", async () => {
    const anonymous = httpClient(test.host.url);
    for (const path of ['health', 'openapi.json', 'console-config', 'schemas/workflow-definition.json']) {
      const existing = await anonymous.request('GET', `/api/tenants/${tenantB}/${path}`);
      const missing = await anonymous.request('GET', `/api/tenants/never-created/${path}`);
      expect([path, existing.status, existing.text]).toEqual([path, missing.status, missing.text]);
    }
  });

  it(`sends thousands of generated requests as tenant A: tenant B stays untouched and unseen (seed ${seed})`, async () => {
    const namesB = tenantStorageNames(tenantB, test.storageNames);
    // B's storage must be at rest before it is the reference: its own work's daily cost sums written (they are
    // flushed every 10 s: decision 0021), then equal twice in a row.
    await (await test.host.tenantRuntime(tenantB))?.core.dailyCosts?.flush();
    let before = await dump(namesB);
    for (let attempt = 0; attempt < 100; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      const again = await dump(namesB);
      if (again === before) break;
      before = again;
    }
    expect(before).toContain(markerOfB);

    const token = await issuer.mint({ roles: ['Signalbox.Admin', 'Signalbox.Operator', 'Signalbox.Sender', 'Signalbox.Reader'], tenants: [tenantA] });
    const asA = httpClient(test.host.url, { authorization: `Bearer ${token}` });
    const random = prng(seed);
    const perRoute = new Map<string, number>(routes.map((route) => [route.name, 0]));
    const statuses = new Map<number, number>();
    const leaks: string[] = [];
    let sent = 0;
    let checks = 0;
    const ticks: string[] = [];
    while (sent < requestCount) {
      const batch: GeneratedRequest[] = [];
      for (let index = 0; index < batchSize && sent + batch.length < requestCount; index += 1) {
        // Every route in turn at first, so each is covered; then at random.
        const route = sent + index < routes.length ? routes[sent + index]! : routes[Math.floor(random() * routes.length)]!;
        batch.push(generate(random, route, [tenantA, tenantB, 'default']));
      }
      // Now and then a sure start in A, and Go to the previous one: its raised trigger, child and timer run while B is checked.
      if (checks % 12 === 0 && sent + batch.length < requestCount) {
        const tick = `tick-${ticks.length}`;
        batch[0] = { route: 'createInstance', method: 'POST', path: `/api/tenants/${tenantA}/instances`, json: { workflowId: 'order', instanceId: tick } };
        const previous = ticks.at(-1);
        if (previous) batch[1] = { route: 'sendTrigger', method: 'POST', path: `/api/tenants/${tenantA}/triggers`, json: { name: 'Go', subjects: [previous] } };
        ticks.push(tick);
      }
      const results: HttpResult[] = await Promise.all(
        batch.map((request) => asA.request(request.method, request.path, { ...(request.json !== undefined ? { json: request.json } : {}), ...(request.headers ? { headers: request.headers } : {}) })),
      );
      for (const [index, request] of batch.entries()) {
        const result = results[index]!;
        perRoute.set(request.route, (perRoute.get(request.route) ?? 0) + 1);
        statuses.set(result.status, (statuses.get(result.status) ?? 0) + 1);
        if (result.text.includes(markerOfB) || [...result.headers.values()].some((value) => value.includes(markerOfB))) leaks.push(`seen: ${request.method} ${request.path} -> ${result.status}`);
        // B's paths and the default tenant's are not A's to use: the one 404 for "no such tenant".
        if ((request.path.startsWith(`/api/tenants/${tenantB}/`) || request.path.startsWith('/api/tenants/default/')) && result.status < 400) {
          // Public routes answer below any tenant's path, alike whether it exists or not: that is no leak.
          const missing = await asA.request(request.method, request.path.replace(/^\/api\/tenants\/[^/]+\//, '/api/tenants/never-created/'));
          if (missing.status !== result.status || missing.text !== result.text) leaks.push(`served: ${request.method} ${request.path} -> ${result.status}`);
        }
      }
      sent += batch.length;
      const after = await dump(namesB);
      checks += 1;
      if (after !== before) {
        leaks.push(`touched after request ${sent} (${batch.map((request) => `${request.method} ${request.path}`).join(', ')})`);
        before = after;
      }
      if (leaks.length > 0) break;
    }
    // Tenant A really worked: its timers fired and children started while B was checked (the mix may have
    // cancelled, moved or deleted some of them, so at least one of the ticks, not all).
    let timersFired = 0;
    let children = 0;
    for (let poll = 0; poll < 200 && timersFired === 0; poll += 1) {
      timersFired = 0;
      children = 0;
      for (const tick of ticks.slice(0, -1)) {
        const history = await admin.request('GET', `/api/tenants/${tenantA}/instances/${tick}/history`);
        if (history.status === 200 && history.body.items.some((entry: { transitionId?: string }) => entry.transitionId === 'later')) timersFired += 1;
        if ((await admin.request('GET', `/api/tenants/${tenantA}/instances/${tick}-parcel`)).status === 200) children += 1;
      }
      if (timersFired === 0) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    if ((await dump(namesB)) !== before) leaks.push('touched after the last batch');
    const progressed = await asA.request('GET', `/api/tenants/${tenantA}/instances?maxPageSize=100`);
    console.log(
      `cross-tenant fuzz (seed ${seed}): ${sent} requests over ${routes.length} routes, B checked ${checks} times, ${leaks.length} leaks; statuses ${JSON.stringify(Object.fromEntries([...statuses].sort(([a], [b]) => a - b)))}; A has ${progressed.body?.items?.length} instances, ${timersFired} timers fired and ${children} children of ${ticks.length} ticks`,
    );
    expect(leaks).toEqual([]);
    expect(timersFired).toBeGreaterThan(0);
    expect(children).toBeGreaterThan(0);
    expect(sent).toBe(requestCount);
    expect([...perRoute].filter(([, count]) => count === 0)).toEqual([]);
    // The mix did things in A, not only refusals.
    expect(statuses.get(200) ?? 0).toBeGreaterThan(requestCount / 10);
  }, 600_000);
});
