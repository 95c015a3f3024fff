/**
 * @module Starts Azurite (Blob, Queue and Table on loopback) from this project's node_modules, for
 * `npm start`, the tests and the benchmarks. Bins are spawned directly, not through `npx`, which would
 * swallow the flags; see shared/design/stack-notes.md for why each flag is needed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, connect } from 'node:net';
import path from 'node:path';

import { AZURITE_ACCOUNT_KEY, AZURITE_ACCOUNT_NAME } from '../storage/development-storage';

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

export async function startAzurite(options: AzuriteOptions = {}): Promise<RunningAzurite> {
  const blobPort = options.blobPort ?? (await freePort());
  const queuePort = options.queuePort ?? (await freePort());
  const tablePort = options.tablePort ?? (await freePort());
  // Resolved through the package, so it works from src/ (tsx) and from the compiled dist/ alike.
  const bin = path.join(path.dirname(require.resolve('azurite/package.json')), 'dist', 'src', 'azurite.js');
  const args = [
    '--blobHost', '127.0.0.1', '--blobPort', String(blobPort),
    '--queueHost', '127.0.0.1', '--queuePort', String(queuePort),
    '--tableHost', '127.0.0.1', '--tablePort', String(tablePort),
    '--silent', '--disableTelemetry', '--skipApiVersionCheck', '--loose',
    ...(options.location ? ['--location', options.location] : ['--inMemoryPersistence']),
  ];
  const child = spawn(process.execPath, [bin, ...args], { stdio: ['ignore', 'ignore', 'pipe'], detached: false });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  try {
    await Promise.all([blobPort, queuePort, tablePort].map((port) => waitForPort(port, 30000, child)));
  } catch (error) {
    child.kill('SIGKILL');
    throw new Error(`${(error as Error).message}\n${stderr}`);
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
