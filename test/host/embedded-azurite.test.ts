/**
 * Issue 9, item 4 (and issue 12, item 6): the embedded Azurite of `npm start` lives and dies with the
 * server. SIGKILL the server: its Azurite shuts down too (saving what was acknowledged), the next start
 * on the same folder finds the data, on the same ports; a second server on a folder in use is refused.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { AZURITE_LOCK_FILE, azuriteConnectionString, freePort } from '../../src/host/local/azurite';
import { startLocalHost } from '../../src/host/local/local-host';
import { silentLogger } from '../../src/host/local/logger';
import { httpClient } from './http-client';

const mainScript = path.join(__dirname, '..', '..', 'src', 'host', 'local', 'main.ts');
const children: ChildProcess[] = [];

function serverEnv(location: string): NodeJS.ProcessEnv {
  const { SIGNALBOX_STORAGE: _storage, AzureWebJobsStorage: _jobs, ...env } = process.env;
  return { ...env, PORT: '0', SIGNALBOX_AZURITE_LOCATION: location };
}

/** `node --import tsx` runs the server in one process, so SIGKILL really kills the server itself. */
const outputs = new WeakMap<ChildProcess, () => string>();
function outputOf(server: { child: ChildProcess }): string {
  return outputs.get(server.child)?.() ?? '';
}

function startServer(location: string): { child: ChildProcess; ready: Promise<string>; exited: Promise<{ code: number | null; output: string }> } {
  const child = spawn(process.execPath, ['--import', 'tsx', mainScript], { env: serverEnv(location), stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let output = '';
  outputs.set(child, () => output);
  const exited = new Promise<{ code: number | null; output: string }>((resolve) => child.once('exit', (code) => resolve({ code, output })));
  const ready = new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const url = /listening on (http:\/\/[^\s/]+)/.exec(output)?.[1];
      if (url) resolve(url);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then(({ code }) => reject(new Error(`server exited with ${code}: ${output}`)));
  });
  ready.catch(() => {});
  return { child, ready, exited };
}

interface Lock {
  blobPort: number;
  queuePort: number;
  tablePort: number;
  azuritePid?: number;
  serverPid?: number;
}

async function readLock(location: string): Promise<Lock> {
  return JSON.parse(await readFile(path.join(location, AZURITE_LOCK_FILE), 'utf8')) as Lock;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitUntil(condition: () => boolean, timeoutInMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutInMs;
  while (Date.now() < deadline) {
    if (condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return condition();
}

let location: string;
const folders: string[] = [];

beforeAll(async () => {
  location = await mkdtemp(path.join(tmpdir(), 'signalbox-azurite-'));
  folders.push(location);
});

afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  // Give any Azurite a moment to notice its parent is gone before the folder goes.
  await new Promise((resolve) => setTimeout(resolve, 500));
  for (const folder of folders) await rm(folder, { recursive: true, force: true });
});

/**
 * An Azurite on `folder` as a server before issue 9 ran it (plain, no launcher tying it to the server):
 * what the server left running when it was killed.
 */
async function orphanedAzurite(folder: string) {
  const ports = { blobPort: await freePort(), queuePort: await freePort(), tablePort: await freePort() };
  const bin = path.join(path.dirname(require.resolve('azurite/package.json')), 'dist', 'src', 'azurite.js');
  const args = ['--blobHost', '127.0.0.1', '--blobPort', String(ports.blobPort), '--queueHost', '127.0.0.1', '--queuePort', String(ports.queuePort)];
  args.push('--tableHost', '127.0.0.1', '--tablePort', String(ports.tablePort), '--silent', '--disableTelemetry', '--skipApiVersionCheck', '--loose', '--location', folder);
  const child = spawn(process.execPath, [bin, ...args], { stdio: 'ignore' });
  children.push(child);
  const listening = (port: number) =>
    new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => (socket.destroy(), resolve(true))).once('error', () => resolve(false));
    });
  const deadline = Date.now() + 30000;
  while (!(await listening(ports.tablePort)) || !(await listening(ports.blobPort))) {
    if (Date.now() > deadline) throw new Error('the orphan Azurite did not start');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { ...ports, pid: child.pid!, connectionString: azuriteConnectionString(ports) };
}

/** The pid of a process that has exited (a server that crashed). */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid!;
}

it('ties Azurite to the server: no orphan after SIGKILL, acknowledged writes kept, same ports, one server per folder', async () => {
  const first = startServer(location);
  const api = httpClient(await first.ready);
  const lock = await readLock(location);
  expect(lock).toMatchObject({ serverPid: first.child.pid, azuritePid: expect.any(Number) });
  expect((await api.request('PUT', '/api/workflows/w', { json: { id: 'w', displayName: 'w', initialStateId: 'a', states: { a: { transitions: [{ id: 'go', targetStateId: 'a' }] } } } })).status).toBe(
    201,
  );
  expect((await api.request('POST', '/api/instances', { json: { workflowId: 'w', instanceId: 'kept' } })).status).toBe(201);

  first.child.kill('SIGKILL');
  await first.exited;
  // Azurite notices its parent is gone and shuts down (saving its database) instead of living on.
  expect(await waitUntil(() => !isAlive(lock.azuritePid!), 20000)).toBe(true);

  const second = startServer(location);
  const again = httpClient(await second.ready);
  expect((await again.request('GET', '/api/instances/kept')).status).toBe(200);
  const relock = await readLock(location);
  expect([relock.blobPort, relock.queuePort, relock.tablePort]).toEqual([lock.blobPort, lock.queuePort, lock.tablePort]);

  // A second server on the folder in use is refused, and the first keeps running.
  const third = startServer(location);
  const refused = await third.exited;
  expect(refused.code).not.toBe(0);
  expect(refused.output).toContain(`is in use by the Signalbox server with pid ${second.child.pid}`);
  expect((await again.request('GET', '/api/health')).status).toBe(200);

  second.child.kill('SIGTERM');
  expect((await second.exited).code).toBe(0);
  expect(await waitUntil(() => !isAlive(relock.azuritePid!), 20000)).toBe(true);
  expect(await readLock(location)).toEqual({ blobPort: relock.blobPort, queuePort: relock.queuePort, tablePort: relock.tablePort });
}, 180_000);

it('stops an orphaned Azurite left on the folder (its data kept), and never a process that merely reuses a recorded pid', async () => {
  // An orphan: an Azurite on the folder whose server is gone, holding data it acknowledged.
  const orphanFolder = await mkdtemp(path.join(tmpdir(), 'signalbox-orphan-'));
  folders.push(orphanFolder);
  const orphan = await orphanedAzurite(orphanFolder);
  const writer = await startLocalHost({ env: { SIGNALBOX_STORAGE: orphan.connectionString }, port: 0, logger: silentLogger });
  const viaOrphan = httpClient(writer.url);
  expect((await viaOrphan.request('PUT', '/api/workflows/w', { json: { id: 'w', displayName: 'w', initialStateId: 'a', states: { a: {} } } })).status).toBe(201);
  expect((await viaOrphan.request('POST', '/api/instances', { json: { workflowId: 'w', instanceId: 'from-orphan' } })).status).toBe(201);
  await writer.stop();
  const ports = { blobPort: orphan.blobPort, queuePort: orphan.queuePort, tablePort: orphan.tablePort };
  await writeFile(path.join(orphanFolder, AZURITE_LOCK_FILE), JSON.stringify({ ...ports, azuritePid: orphan.pid, serverPid: await deadPid() }));

  const server = startServer(orphanFolder);
  const api = httpClient(await server.ready);
  expect(isAlive(orphan.pid)).toBe(false);
  expect((await api.request('GET', '/api/instances/from-orphan')).status).toBe(200);
  expect(await readLock(orphanFolder)).toMatchObject({ ...ports, serverPid: server.child.pid });
  server.child.kill('SIGTERM');
  expect((await server.exited).code).toBe(0);

  // A stale lock (a crash, then a reboot) whose Azurite pid now belongs to an unrelated process.
  const staleFolder = await mkdtemp(path.join(tmpdir(), 'signalbox-stale-'));
  folders.push(staleFolder);
  const bystander = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 120000)']);
  children.push(bystander);
  await new Promise((resolve) => bystander.once('spawn', resolve));
  await writeFile(path.join(staleFolder, AZURITE_LOCK_FILE), JSON.stringify({ ...ports, azuritePid: bystander.pid, serverPid: await deadPid() }));
  const fresh = startServer(staleFolder);
  const freshApi = httpClient(await fresh.ready);
  expect((await freshApi.request('GET', '/api/health')).status).toBe(200);
  expect(bystander.exitCode).toBeNull();
  expect(isAlive(bystander.pid!)).toBe(true);
  fresh.child.kill('SIGTERM');
  expect((await fresh.exited).code).toBe(0);
}, 180_000);

/** Runs `npm run reset`'s script on `folder`. */
function reset(folder: string): Promise<{ code: number | null; output: string }> {
  const script = path.join(__dirname, '..', '..', 'scripts', 'reset-local-data.mjs');
  const child = spawn(process.execPath, [script], { env: serverEnv(folder), stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, output })));
}

it('says at start-up where the data lives and on which ports, that the ports moved when they were taken; npm run reset deletes the data, never under a running server', async () => {
  const folder = await mkdtemp(path.join(tmpdir(), 'signalbox-reset-'));
  folders.push(folder);
  // The ports this folder would use are held by someone else.
  const { createServer } = await import('node:net');
  const holders = await Promise.all(
    [0, 1, 2].map(
      () =>
        new Promise<import('node:net').Server>((resolve) => {
          const holder = createServer();
          holder.listen(0, '127.0.0.1', () => resolve(holder));
        }),
    ),
  );
  const held = holders.map((holder) => (holder.address() as import('node:net').AddressInfo).port);
  await writeFile(path.join(folder, AZURITE_LOCK_FILE), JSON.stringify({ blobPort: held[0], queuePort: held[1], tablePort: held[2] }));
  try {
    const server = startServer(folder);
    const api = httpClient(await server.ready);
    const lock = await readLock(folder);
    // The lines come together; wait for the last one.
    expect(await waitUntil(() => /were taken/.test(outputOf(server)), 20000)).toBe(true);
    const output = outputOf(server);
    expect(output).toContain(`Data: ${folder}, served by Azurite on Blob ${lock.blobPort}, Queue ${lock.queuePort}, Table ${lock.tablePort}`);
    expect(output).toContain(`Azurite's usual ports (Blob ${held[0]}, Queue ${held[1]}, Table ${held[2]}) were taken, so it runs on Blob ${lock.blobPort}`);
    expect(
      (await api.request('PUT', '/api/workflows/w', { json: { id: 'w', displayName: 'w', initialStateId: 'a', states: { a: { transitions: [{ id: 'go', targetStateId: 'a' }] } } } })).status,
    ).toBe(201);

    const refused = await reset(folder);
    expect(refused.code).toBe(1);
    expect(refused.output).toContain(`The Signalbox server with pid ${server.child.pid} is using ${folder}`);

    server.child.kill('SIGTERM');
    expect((await server.exited).code).toBe(0);
    expect(await waitUntil(() => !isAlive(lock.azuritePid!), 20000)).toBe(true);
    const done = await reset(folder);
    expect(done).toMatchObject({ code: 0, output: expect.stringContaining(`Deleted ${folder}`) });

    const fresh = startServer(folder);
    const again = httpClient(await fresh.ready);
    expect((await again.request('GET', '/api/workflows/w')).status).toBe(404);
    fresh.child.kill('SIGTERM');
    await fresh.exited;
  } finally {
    for (const holder of holders) holder.close();
  }
}, 180_000);
