/**
 * `npm run bench:start-up`: how long the local server takes from spawn to a 200 from /api/health, and the
 * memory of its process tree (the server and its embedded Azurite) at that moment: the compiled
 * JavaScript that `npm start` runs against `npm run start:dev` (tsx). Issue 11 asked for compiled start-up
 * if it halves time and memory. Each variant runs BENCH_STARTS times (default 5) on a fresh data folder and
 * a free port; the medians are printed. Needs `npm run build` first (it checks). Asserts nothing.
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { freePort } from '../src/host/local/azurite';
import { runBench } from './support/bench-support';

const STARTS = Number(process.env.BENCH_STARTS ?? 5);
const root = path.join(__dirname, '..');
const compiledMain = path.join(root, 'dist', 'src', 'host', 'local', 'main.js');
const tsxCli = path.join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs');

/** The commands `npm start` and `npm run start:dev` run, without npm's own process in front. */
const variants: { name: string; args: string[] }[] = [
  { name: 'compiled (npm start)', args: ['--enable-source-maps', compiledMain] },
  { name: 'tsx (npm run start:dev)', args: [tsxCli, path.join(root, 'src', 'host', 'local', 'main.ts')] },
];

/**
 * Resident memory of a process and all its descendants, from /proc (Linux), and the part of it that is
 * the embedded Azurite (the child whose command line names it).
 */
function treeRssBytes(rootPid: number): { bytes: number; azuriteBytes: number; processes: number } {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
    } catch {
      // The process ended while we looked.
    }
  }
  const pageSize = Number(execFileSync('getconf', ['PAGESIZE']).toString().trim());
  let bytes = 0;
  let azuriteBytes = 0;
  let processes = 0;
  const pending = [rootPid];
  while (pending.length > 0) {
    const pid = pending.pop()!;
    try {
      const rss = Number(readFileSync(`/proc/${pid}/statm`, 'utf8').split(' ')[1]) * pageSize;
      bytes += rss;
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('\0azurite\0')) azuriteBytes += rss;
      processes += 1;
    } catch {
      continue;
    }
    pending.push(...(children.get(pid) ?? []));
  }
  return { bytes, azuriteBytes, processes };
}

async function healthy(url: string, child: ChildProcess): Promise<void> {
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}`);
    try {
      if ((await fetch(url)).status === 200) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

interface Start {
  seconds: number;
  rssMiB: number;
  azuriteMiB: number;
  processes: number;
}

async function startOnce(args: string[]): Promise<Start> {
  const port = await freePort();
  const data = mkdtempSync(path.join(os.tmpdir(), 'signalbox-start-'));
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), SIGNALBOX_AZURITE_LOCATION: data };
  delete env.SIGNALBOX_STORAGE;
  delete env.AzureWebJobsStorage;
  const begin = performance.now();
  const child = spawn(process.execPath, args, { cwd: root, env, stdio: 'ignore' });
  try {
    await healthy(`http://127.0.0.1:${port}/api/health`, child);
    const seconds = (performance.now() - begin) / 1000;
    const { bytes, azuriteBytes, processes } = treeRssBytes(child.pid!);
    return { seconds, rssMiB: bytes / 2 ** 20, azuriteMiB: azuriteBytes / 2 ** 20, processes };
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
    rmSync(data, { recursive: true, force: true });
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main(): Promise<void> {
  if (!existsSync(compiledMain)) throw new Error('dist/ is missing: run `npm run build` first');
  const rows: Record<string, string>[] = [];
  for (const variant of variants) {
    const runs: Start[] = [];
    for (let run = 0; run < STARTS; run += 1) runs.push(await startOnce(variant.args));
    const mib = (value: number) => `${value.toFixed(0)} MiB`;
    rows.push({
      variant: variant.name,
      'spawn to /api/health 200': `${median(runs.map((run) => run.seconds)).toFixed(2)} s`,
      'RSS of the process tree then': `${mib(median(runs.map((run) => run.rssMiB)))} in ${runs[0]!.processes} processes`,
      'of which Signalbox': mib(median(runs.map((run) => run.rssMiB - run.azuriteMiB))),
      'of which Azurite': mib(median(runs.map((run) => run.azuriteMiB))),
    });
  }
  console.log(
    `\nLocal server start-up, medians of ${STARTS} starts each; load average ${os
      .loadavg()
      .map((load) => load.toFixed(1))
      .join(' ')}`,
  );
  console.table(rows);
}

runBench(main);
