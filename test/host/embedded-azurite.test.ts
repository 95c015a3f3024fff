/**
 * Issue 9, item 4 (and issue 12, item 6): the embedded Azurite of `npm start` lives and dies with the
 * server. SIGKILL the server: its Azurite shuts down too (saving what was acknowledged), the next start
 * on the same folder finds the data, on the same ports; a second server on a folder in use is refused.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { AZURITE_LOCK_FILE } from '../../src/host/azurite';
import { httpClient } from './http-client';

const mainScript = path.join(__dirname, '..', '..', 'src', 'host', 'main.ts');
const children: ChildProcess[] = [];

function serverEnv(location: string): NodeJS.ProcessEnv {
  const { SIGNALBOX_STORAGE: _storage, AzureWebJobsStorage: _jobs, ...env } = process.env;
  return { ...env, PORT: '0', SIGNALBOX_AZURITE_LOCATION: location };
}

/** `node --import tsx` runs the server in one process, so SIGKILL really kills the server itself. */
function startServer(location: string): { child: ChildProcess; ready: Promise<string>; exited: Promise<{ code: number | null; output: string }> } {
  const child = spawn(process.execPath, ['--import', 'tsx', mainScript], { env: serverEnv(location), stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let output = '';
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

beforeAll(async () => {
  location = await mkdtemp(path.join(tmpdir(), 'signalbox-azurite-'));
});

afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  // Give any Azurite a moment to notice its parent is gone before the folder goes.
  await new Promise((resolve) => setTimeout(resolve, 500));
  await rm(location, { recursive: true, force: true });
});

it('ties Azurite to the server: no orphan after SIGKILL, acknowledged writes kept, same ports, one server per folder', async () => {
  const first = startServer(location);
  const api = httpClient(await first.ready);
  const lock = await readLock(location);
  expect(lock).toMatchObject({ serverPid: first.child.pid, azuritePid: expect.any(Number) });
  expect((await api.request('PUT', '/api/workflows/w', { json: { id: 'w', displayName: 'w', initialStateId: 'a', states: { a: { transitions: [{ id: 'go', targetStateId: 'a' }] } } } })).status).toBe(201);
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
