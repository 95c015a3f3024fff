/**
 * @module Starts Azurite (Blob, Queue and Table on loopback) from this project's node_modules, for
 * `npm start`, the tests and the benchmarks. Bins are spawned directly, not through `npx`, which would
 * swallow the flags; see shared/design/stack-notes.md for why each flag is needed.
 *
 * Azurite's life is tied to its parent's: it runs under a small launcher with an IPC channel to this
 * process, and when the channel closes (this process exited, even by SIGKILL) the launcher asks Azurite
 * to shut down as SIGTERM does, which saves its in-memory database to disk first. Without that, a killed
 * server left Azurite orphaned, and the next start ran a second one on the same folder. With a data
 * folder, `startEmbeddedAzurite` also keeps a lock file there (one Azurite per folder) and the ports.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, connect } from 'node:net';
import path from 'node:path';

import { foreignErrorCode } from '../../engine/model';
import { AZURITE_ACCOUNT_KEY, AZURITE_ACCOUNT_NAME } from '../../storage/development-storage';

export { AZURITE_ACCOUNT_KEY, AZURITE_ACCOUNT_NAME };

export interface AzuriteOptions {
  /** Directory for persistent data; in-memory when omitted. */
  location?: string;
  /** @default free ports chosen by the OS */
  blobPort?: number;
  queuePort?: number;
  tablePort?: number;
}

export interface RunningAzurite {
  readonly connectionString: string;
  readonly blobPort: number;
  readonly queuePort: number;
  readonly tablePort: number;
  readonly pid: number | undefined;
  /** The data folder (the embedded Azurite of the local server). */
  readonly location?: string;
  /** The ports it would have used (Azurite's defaults, or last start's) when they were taken. */
  readonly movedFrom?: { readonly blobPort: number; readonly queuePort: number; readonly tablePort: number };
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

async function waitForPort(port: number, timeoutInMs: number, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + timeoutInMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`Azurite exited early with code ${child.exitCode}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`Azurite did not open port ${port} within ${timeoutInMs} ms`);
}

export function azuriteConnectionString(ports: { blobPort: number; queuePort: number; tablePort: number }): string {
  return [
    'DefaultEndpointsProtocol=http',
    `AccountName=${AZURITE_ACCOUNT_NAME}`,
    `AccountKey=${AZURITE_ACCOUNT_KEY}`,
    `BlobEndpoint=http://127.0.0.1:${ports.blobPort}/${AZURITE_ACCOUNT_NAME}`,
    `QueueEndpoint=http://127.0.0.1:${ports.queuePort}/${AZURITE_ACCOUNT_NAME}`,
    `TableEndpoint=http://127.0.0.1:${ports.tablePort}/${AZURITE_ACCOUNT_NAME}`,
  ].join(';');
}

/**
 * Runs Azurite in this child with its parent's life: when the IPC channel to the parent closes, shut
 * down as on SIGTERM (Azurite closes its servers and saves its database), and exit for sure soon after.
 * The first argument only fills argv[1], which Azurite's argument parser skips.
 */
const launcher = `
process.once('disconnect', () => {
  process.kill(process.pid, 'SIGTERM');
  setTimeout(() => process.exit(0), 10000).unref();
});
require(process.env.SIGNALBOX_AZURITE_BIN);
`;

export async function startAzurite(options: AzuriteOptions = {}): Promise<RunningAzurite> {
  const blobPort = options.blobPort ?? (await freePort());
  const queuePort = options.queuePort ?? (await freePort());
  const tablePort = options.tablePort ?? (await freePort());
  // Resolved through the package, so it works from src/ (tsx) and from the compiled dist/ alike.
  const bin = path.join(path.dirname(require.resolve('azurite/package.json')), 'dist', 'src', 'azurite.js');
  const args = [
    '--blobHost',
    '127.0.0.1',
    '--blobPort',
    String(blobPort),
    '--queueHost',
    '127.0.0.1',
    '--queuePort',
    String(queuePort),
    '--tableHost',
    '127.0.0.1',
    '--tablePort',
    String(tablePort),
    '--silent',
    '--disableTelemetry',
    '--skipApiVersionCheck',
    '--loose',
    ...(options.location ? ['--location', options.location] : ['--inMemoryPersistence']),
  ];
  const child = spawn(process.execPath, ['-e', launcher, 'azurite', ...args], {
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    detached: false,
    env: { ...process.env, SIGNALBOX_AZURITE_BIN: bin },
  });
  // The channel must not keep this process alive; it exists only so that its closing tells the child.
  child.channel?.unref();
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  try {
    await Promise.all([blobPort, queuePort, tablePort].map((port) => waitForPort(port, 30000, child)));
  } catch (error) {
    child.kill('SIGKILL');
    throw new Error(`${(error as Error).message}\n${stderr}`, { cause: error });
  }
  return {
    connectionString: azuriteConnectionString({ blobPort, queuePort, tablePort }),
    blobPort,
    queuePort,
    tablePort,
    pid: child.pid,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 3000).unref();
      }),
  };
}

// ---- the embedded Azurite of `npm start`: one per data folder, on stable ports -----------------------

/** Azurite's own default ports, which Storage Explorer's "local emulator" connection expects. */
const DEFAULT_PORTS = { blobPort: 10000, queuePort: 10001, tablePort: 10002 };
/** In the data folder: which process runs Azurite on it, and the ports it used (reused next time). */
export const AZURITE_LOCK_FILE = 'signalbox-azurite.json';

interface LockRecord {
  readonly blobPort: number;
  readonly queuePort: number;
  readonly tablePort: number;
  /** Set while running: the Azurite process and the server that owns it. */
  readonly azuritePid?: number;
  readonly serverPid?: number;
}

function isAlive(pid: number | undefined): boolean {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return foreignErrorCode(error) === 'EPERM';
  }
}

/**
 * Whether `pid` is an Azurite on `location` (its command line names Azurite and the folder: the launcher
 * of startAzurite, or the plain Azurite an older server ran), not another process that took over a
 * recorded pid after a crash or a reboot: a stale lock must neither get an unrelated process killed nor
 * keep the folder refused. Where the command line cannot be read (no /proc, no ps), the pid is trusted.
 */
function isAzuriteOf(pid: number, location: string): boolean {
  let commandLine: string;
  try {
    commandLine = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    try {
      commandLine = execFileSync('ps', ['-o', 'command=', '-p', String(pid)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    } catch {
      return true;
    }
  }
  return /azurite/i.test(commandLine) && commandLine.includes(location);
}

async function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

async function portsAreFree(ports: { blobPort: number; queuePort: number; tablePort: number }): Promise<boolean> {
  const free = await Promise.all([ports.blobPort, ports.queuePort, ports.tablePort].map(portIsFree));
  return free.every(Boolean);
}

async function readLock(file: string): Promise<LockRecord | undefined> {
  try {
    const parsed = JSON.parse(await readFile(file, 'utf8')) as Partial<LockRecord>;
    if ([parsed.blobPort, parsed.queuePort, parsed.tablePort].every((port) => Number.isInteger(port) && port! > 0 && port! < 65536)) return parsed as LockRecord;
  } catch {
    // Absent or unreadable: start afresh.
  }
  return undefined;
}

async function waitForExit(pid: number, timeoutInMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutInMs;
  while (Date.now() < deadline) {
    if (!isAlive(pid)) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return !isAlive(pid);
}

/**
 * Starts the Azurite that keeps its data in `location`, for the local server. Refuses a folder another
 * running Signalbox server uses (two Azurites on one folder each keep their own copy in memory and
 * overwrite each other's saves); an orphan left by an older server is shut down gracefully first. Ports
 * stay the same from one start to the next (the ones recorded in the folder, first Azurite's defaults),
 * so Storage Explorer stays connected; busy ones are replaced by free ones.
 */
export async function startEmbeddedAzurite(location: string): Promise<RunningAzurite> {
  await mkdir(location, { recursive: true });
  const lockFile = path.join(location, AZURITE_LOCK_FILE);
  const previous = await readLock(lockFile);
  if (previous && isAlive(previous.azuritePid) && previous.azuritePid !== undefined && isAzuriteOf(previous.azuritePid, location)) {
    if (previous.serverPid !== process.pid && isAlive(previous.serverPid)) {
      throw new Error(
        `The Azurite data folder ${location} is in use by the Signalbox server with pid ${previous.serverPid} (Azurite pid ${previous.azuritePid}): stop it first, or give this server another folder (SIGNALBOX_AZURITE_LOCATION)`,
      );
    }
    // Its server is gone: an orphan. SIGTERM makes Azurite save its database and exit.
    process.kill(previous.azuritePid, 'SIGTERM');
    if (!(await waitForExit(previous.azuritePid, 15000))) throw new Error(`An orphaned Azurite (pid ${previous.azuritePid}) on ${location} did not stop; stop it and start again`);
  }
  const preferred = previous ?? DEFAULT_PORTS;
  const ports = (await portsAreFree(preferred)) ? preferred : { blobPort: await freePort(), queuePort: await freePort(), tablePort: await freePort() };
  let azurite: RunningAzurite;
  try {
    azurite = await startAzurite({ location, ...pick(ports) });
  } catch (error) {
    // Another program took a preferred port between the check and Azurite's bind: once more on free ones.
    if (ports !== preferred) throw error;
    azurite = await startAzurite({ location });
  }
  const record = (running: boolean): LockRecord => ({ ...pick(azurite), ...(running ? { azuritePid: azurite.pid, serverPid: process.pid } : {}) });
  await writeFile(lockFile, `${JSON.stringify(record(true), null, 2)}\n`);
  const moved = azurite.blobPort !== preferred.blobPort || azurite.queuePort !== preferred.queuePort || azurite.tablePort !== preferred.tablePort;
  return {
    ...azurite,
    location,
    ...(moved ? { movedFrom: pick(preferred) } : {}),
    async stop() {
      await azurite.stop();
      // Keep the ports for the next start; drop the pids so nobody mistakes the folder for busy.
      await writeFile(lockFile, `${JSON.stringify(record(false), null, 2)}\n`).catch(() => rm(lockFile, { force: true }));
    },
  };
}

function pick(ports: { blobPort: number; queuePort: number; tablePort: number }) {
  return { blobPort: ports.blobPort, queuePort: ports.queuePort, tablePort: ports.tablePort };
}
