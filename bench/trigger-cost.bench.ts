/**
 * `npm run bench:trigger-cost`: what one trigger to one instance costs, measured so that two commits can be
 * compared request by request. Sequential single-instance triggers (`Prefer: wait`, one client) through the
 * local host on Azurite; prints CPU per trigger (this process: client and server; Azurite), storage requests
 * per trigger by kind with their average header and body bytes each way, the rows of each table afterwards
 * (Azurite filters whole tables on queries) and the instance row's columns. With BENCH_PROFILE=<file> it
 * writes a CPU profile (`.cpuprofile`) of the measured triggers only.
 *
 * It runs unchanged in an older checkout (it finds the local host under src/host/local or src/host), so the
 * same code measures both sides: copy it into the other checkout and run `npx tsx bench/trigger-cost.bench.ts`.
 *
 *   BENCH_INSTANCES (default 300), BENCH_TRIGGERS (default 400), BENCH_PROFILE (no profile unless set),
 *   BENCH_CLIENTS (default 1): clients sending at once, each to the next instance in turn
 */
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
const root = process.cwd();
const local = existsSync(`${root}/src/host/local/azurite.ts`) ? 'src/host/local' : 'src/host';
const counterWorkflow = JSON.parse(readFileSync(`${root}/examples/counter.json`, 'utf8'));
const INSTANCES = Number(process.env.BENCH_INSTANCES ?? 300);
const TRIGGERS = Number(process.env.BENCH_TRIGGERS ?? 400);
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 1);
const PROFILE = process.env.BENCH_PROFILE;
function cpuOf(pid: number | undefined): number {
  if (pid === undefined) return 0;
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) * 10;
}
const headerBytes = (h: any): number => {
  let n = 0;
  const o = typeof h?.toJSON === 'function' ? h.toJSON() : (h?.rawHeaders?.() ?? {});
  if (Array.isArray(o)) {
    for (const x of o) n += String(x.name).length + String(x.value).length + 4;
  } else for (const [k, v] of Object.entries(o)) n += k.length + String(v).length + 4;
  return n;
};
const bodyBytes = (b: any): number => (typeof b === 'string' ? Buffer.byteLength(b) : b instanceof Uint8Array ? b.length : 0);
async function main() {
  const { startAzurite } = await import(`${root}/${local}/azurite`);
  const { startLocalHost } = await import(`${root}/${local}/local-host`);
  const { silentLogger } = await import(`${root}/${local}/logger`);
  const { prefixedStorageNames } = await import(`${root}/src/storage/names`);
  const { createRequestCounter } = await import(`${root}/src/storage/request-counter`);
  const { createAzureStorage } = await import(`${root}/src/storage/create-azure-storage`);
  const inner = createRequestCounter();
  const bytes: Record<string, { n: number; reqH: number; reqB: number; resH: number; resB: number }> = {};
  const add = (kind: string, reqH: number, reqB: number, resH: number, resB: number) => {
    const e = (bytes[kind] ??= { n: 0, reqH: 0, reqB: 0, resH: 0, resB: 0 });
    e.n++;
    e.reqH += reqH;
    e.reqB += reqB;
    e.resH += resH;
    e.resB += resB;
  };
  let counting = false;
  const counter = {
    ...inner,
    tablePolicy: {
      name: 'benchByteCounter',
      sendRequest: async (request: any, next: any) => {
        const response = await inner.tablePolicy.sendRequest(request, next);
        if (counting)
          add(
            `table ${request.method}${request.url.includes('$batch') ? ' $batch' : ''}${request.url.includes('$filter') || request.url.includes('%24filter') ? ' query' : ''} ${new URL(request.url).pathname.split('/')[2]?.replace(/\(.*$/, '')}`,
            headerBytes(request.headers),
            bodyBytes(request.body),
            headerBytes(response.headers),
            bodyBytes(response.bodyAsText ?? ''),
          );
        return response;
      },
    },
    blobPolicyFactory: {
      create: (nextPolicy: any, options: any) => {
        const p = inner.blobPolicyFactory.create(nextPolicy, options);
        return {
          sendRequest: async (request: any) => {
            const response = await p.sendRequest(request);
            if (counting)
              add(
                `blob ${request.headers.get('x-ms-lease-action') ?? request.method}`,
                headerBytes(request.headers),
                bodyBytes(request.body),
                headerBytes(response.headers),
                bodyBytes(response.bodyAsText ?? ''),
              );
            return response;
          },
        };
      },
    },
  };
  const azurite = await startAzurite();
  const names = prefixedStorageNames('cost');
  const host = await startLocalHost({ env: { SIGNALBOX_STORAGE: azurite.connectionString }, port: 0, storageNames: names, logger: silentLogger, requestCounter: counter });
  const base = host.url;
  const json = async (url: string, method = 'GET', body?: unknown, headers: Record<string, string> = {}) => {
    const r = await fetch(url, {
      method,
      headers: { 'x-signalbox-client': 'bench', ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const t = await r.text();
    return { status: r.status, body: t ? JSON.parse(t) : undefined, size: t.length };
  };
  const trigger = async (subject: string) => {
    const a = await json(`${base}/api/triggers`, 'POST', { name: 'Increment', subjects: [subject] }, { prefer: 'wait=30' });
    if (a.status !== 200) throw new Error(`status ${a.status} ${JSON.stringify(a.body)}`);
    return a;
  };
  try {
    await json(`${base}/api/workflows/counter`, 'PUT', counterWorkflow);
    for (let i = 0; i < INSTANCES; i += 8)
      await Promise.all(
        Array.from({ length: Math.min(8, INSTANCES - i) }, (_, k) => json(`${base}/api/instances`, 'POST', { workflowId: 'counter', instanceId: `i-${i + k}`, context: { count: 0 } })),
      );
    for (let i = 0; i < 60; i++) await trigger(`i-${i % INSTANCES}`);
    let session: Session | undefined;
    if (PROFILE) {
      session = new Session();
      session.connect();
      await session.post('Profiler.enable');
      await session.post('Profiler.setSamplingInterval', { interval: 200 });
      await session.post('Profiler.start');
    }
    inner.reset();
    counting = true;
    const own0 = process.cpuUsage();
    const az0 = cpuOf(azurite.pid);
    const t0 = performance.now();
    let answerBytes = 0;
    let next = 0;
    const client = async () => {
      for (let i = next++; i < TRIGGERS; i = next++) {
        const answer = await trigger(`i-${i % INSTANCES}`);
        answerBytes += answer.size;
      }
    };
    await Promise.all(Array.from({ length: CLIENTS }, client));
    const seconds = (performance.now() - t0) / 1000;
    const own = process.cpuUsage(own0);
    const az = cpuOf(azurite.pid) - az0;
    await new Promise((r) => setTimeout(r, 300));
    counting = false;
    if (session) {
      const { profile } = await session.post('Profiler.stop');
      writeFileSync(PROFILE!, JSON.stringify(profile));
      session.disconnect();
    }
    const c = inner.counts();
    console.log(
      JSON.stringify({
        root,
        triggers: TRIGGERS,
        perSecond: +(TRIGGERS / seconds).toFixed(1),
        ownCpuMs: +((own.user + own.system) / 1000 / TRIGGERS).toFixed(2),
        azuriteCpuMs: +(az / TRIGGERS).toFixed(2),
        requests: +(c.total / TRIGGERS).toFixed(2),
        answerBytes: Math.round(answerBytes / TRIGGERS),
      }),
    );
    const rows = Object.entries(bytes).map(([k, e]) => ({
      kind: k,
      perTrigger: +(e.n / TRIGGERS).toFixed(2),
      reqHeaders: Math.round(e.reqH / e.n),
      reqBody: Math.round(e.reqB / e.n),
      resHeaders: Math.round(e.resH / e.n),
      resBody: Math.round(e.resB / e.n),
    }));
    console.table(rows);
    const storage = await createAzureStorage({ connection: azurite.connectionString, names });
    const sizes: Record<string, number> = {};
    for (const [name, client] of Object.entries(storage.clients as Record<string, any>)) {
      if (typeof client?.listEntities !== 'function') continue;
      let n = 0;
      for await (const page of client.listEntities({ queryOptions: { select: ['RowKey'] } }).byPage({ maxPageSize: 1000 })) n += page.length;
      sizes[name] = n;
    }
    console.log('rows per table', JSON.stringify(sizes));
    const pk: Record<string, number> = {};
    for await (const e of (storage.clients as any).instances.listEntities({ queryOptions: { select: ['PartitionKey', 'RowKey'] } })) {
      const k = String(e.rowKey)
        .replace(/[0-9a-f-]{6,}.*/, '#')
        .slice(0, 20);
      pk[k] = (pk[k] ?? 0) + 1;
    }
    console.log('instances rows by RowKey shape', JSON.stringify(pk));
    const inst = await (storage.clients as any).instances.getEntity('i-0', 'instance');
    console.log(
      'instance row columns',
      JSON.stringify(
        Object.fromEntries(
          Object.entries(inst)
            .filter(([k]) => k !== 'etag' && k !== 'odata.metadata')
            .map(([k, v]) => [k, typeof v === 'string' ? v.length : v]),
        ),
      ),
    );
  } finally {
    await host.stop();
    await azurite.stop();
  }
}
main().catch((e) => {
  console.error(e);
  process.exit(1);
});
