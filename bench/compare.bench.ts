/**
 * `npm run bench:compare -- <checkout> <checkout> ...`: runs `bench/api.bench.ts` of each checkout (a
 * directory holding the project at some commit, e.g. made with `git archive <commit> | tar -x -C dir`
 * and a `node_modules` link), interleaved (round r runs them in an order rotated by r, so a change of
 * load on the machine weighs on all alike), BENCH_COMPARE_RUNS times (default 3), and prints per
 * checkout the median and spread (min–max) of the figures issue 25 asks for, with `uptime` before each
 * round. The benches run one at a time; each starts its own Azurite. The BENCH_* settings pass through.
 */
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';

const RUNS = Number(process.env.BENCH_COMPARE_RUNS ?? 3);
const checkouts = process.argv.slice(2).map((dir) => resolve(dir));
if (checkouts.length === 0) {
  console.error('usage: npm run bench:compare -- <checkout> [<checkout> ...]');
  process.exit(2);
}

/** The figures, each read from one row of bench:api's table by a pattern whose first group is the number. */
const FIGURES: readonly { readonly name: string; readonly row: string; readonly pattern: RegExp }[] = [
  { name: 'triggers/s (Prefer: wait)', row: 'Prefer: wait', pattern: /'(\d+) triggers\/s/ },
  { name: 'of the floor', row: 'Prefer: wait', pattern: /= ([\d.]+) of the floor/ },
  { name: 'CPU ms per trigger, server process', row: 'Prefer: wait', pattern: /this process ([\d.]+) ms/ },
  { name: 'CPU ms per trigger, Azurite', row: 'Prefer: wait', pattern: /Azurite ([\d.]+) ms/ },
  { name: 'p50 ms, POST to finished', row: 'p50 / p99', pattern: /'([\d.]+) ms \// },
  { name: 'p99 ms, POST to finished', row: 'p50 / p99', pattern: /\/ ([\d.]+) ms =/ },
  { name: 'storage requests per trigger', row: 'storage requests of one single-instance trigger, Prefer: wait', pattern: /'(\d+) \{/ },
  { name: 'concurrent triggers/s (16 clients, 100 instances)', row: 'clients on', pattern: /'(\d+) triggers\/s/ },
  { name: 'concurrent p95 ms', row: 'clients on', pattern: /p95 ([\d.]+) ms/ },
  { name: 'concurrent CPU ms per trigger, server process', row: 'clients on', pattern: /this process ([\d.]+) ms/ },
  { name: 'concurrent CPU ms per trigger, Azurite', row: 'clients on', pattern: /Azurite ([\d.]+) ms/ },
  { name: 'fan-out applications/s', row: 'one trigger →', pattern: /'(\d+) applications\/s/ },
  { name: 'fan-out peak RSS MiB', row: 'peak during the fan-out', pattern: /\/ (\d+) MiB/ },
];

function figuresOf(output: string): number[] {
  const lines = output.split('\n');
  return FIGURES.map(({ row, pattern }) => {
    const line = lines.find((candidate) => candidate.includes(row) && pattern.test(candidate));
    return line ? Number(pattern.exec(line)![1]) : NaN;
  });
}

const results = checkouts.map(() => [] as number[][]);
for (let run = 0; run < RUNS; run += 1) {
  console.log(`round ${run + 1}/${RUNS}: ${execFileSync('uptime', { encoding: 'utf8' }).trim()}`);
  for (let step = 0; step < checkouts.length; step += 1) {
    const index = (step + run) % checkouts.length;
    const output = execFileSync('npx', ['tsx', 'bench/api.bench.ts'], { cwd: checkouts[index], encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 64 * 2 ** 20 });
    results[index]!.push(figuresOf(output));
    console.log(`  ${checkouts[index]}: ${figuresOf(output).join(' ')}`);
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const table: Record<string, Record<string, string>> = {};
FIGURES.forEach(({ name }, figure) => {
  table[name] = {};
  checkouts.forEach((checkout, index) => {
    const values = results[index]!.map((figures) => figures[figure]!);
    table[name]![checkout] = `${median(values)} (${Math.min(...values)}–${Math.max(...values)})`;
  });
});
console.log(`\nbench:api, ${RUNS} interleaved runs each: median (min–max); ${execFileSync('uptime', { encoding: 'utf8' }).trim()}`);
console.table(table);
