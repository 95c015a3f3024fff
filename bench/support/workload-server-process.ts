/**
 * @module The parent's side of workload-server.ts: starts the server process (under tsx, with
 * `--cpu-prof` into BENCH_PROFILE_DIR when set) and asks it for its URL, its CPU and the storage
 * requests it counted.
 */
import { fork } from 'node:child_process';
import path from 'node:path';
import type { RequestCounts } from '../../src/storage/request-counter';

export type ServerRequest = { type: 'settle'; id: number } | { type: 'stop'; id: number };
export type ServerReply =
  { type: 'ready'; id: 0; url: string } | { type: 'settled'; id: number; counts: RequestCounts; requests: readonly string[]; cpu: NodeJS.CpuUsage } | { type: 'stopped'; id: number };

export interface Settled {
  readonly counts: RequestCounts;
  readonly requests: readonly string[];
  /** The server process's CPU so far (user + system), ms. */
  readonly cpuMs: number;
}

export interface ServerProcess {
  readonly url: string;
  readonly pid: number;
  /** Once no storage request has been sent for a while: the requests since the last call, and the CPU so far. */
  settle(): Promise<Settled>;
  stop(): Promise<void>;
}

export async function startServerProcess(connectionString: string, prefix: string): Promise<ServerProcess> {
  const profileDir = process.env.BENCH_PROFILE_DIR;
  const child = fork(path.join(__dirname, 'workload-server.ts'), [], {
    execArgv: ['--import', 'tsx', ...(profileDir ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : [])],
    env: { ...process.env, SIGNALBOX_STORAGE: connectionString, BENCH_PREFIX: prefix },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let sequence = 0;
  const waiting = new Map<number, (reply: ServerReply) => void>();
  const ready = new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the server process exited with code ${code}`)));
    waiting.set(0, (reply) => resolve(reply.type === 'ready' ? reply.url : ''));
  });
  child.on('message', (reply: ServerReply) => {
    waiting.get(reply.id)?.(reply);
    waiting.delete(reply.id);
  });
  const ask = (type: ServerRequest['type']): Promise<ServerReply> =>
    new Promise((resolve) => {
      const id = ++sequence;
      waiting.set(id, resolve);
      child.send({ type, id } satisfies ServerRequest);
    });
  const url = await ready;
  return {
    url,
    pid: child.pid ?? 0,
    async settle() {
      const reply = await ask('settle');
      if (reply.type !== 'settled') throw new Error(`unexpected reply ${reply.type}`);
      return { counts: reply.counts, requests: reply.requests, cpuMs: (reply.cpu.user + reply.cpu.system) / 1000 };
    },
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      await ask('stop');
      await exited;
    },
  };
}
