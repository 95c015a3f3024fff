/**
 * Cold load of the Functions app: how long `require('dist/functions/index.js')` takes in a fresh Node
 * process, without and with APPLICATIONINSIGHTS_CONNECTION_STRING (which loads telemetry).
 * `npm run build && npm run bench:cold-load [entry] [runs]`. Prints the median and range of each, in CPU
 * time (user + system: on a shared machine wall time mostly measures the neighbours) and in wall time.
 * `--distro` measures the path before issue 12 instead: with a connection string, the
 * `applicationinsights` distro started as functions/telemetry.ts used to start it (`useAzureMonitor`),
 * then the app with its own telemetry off, so the two can be compared on one machine at one time.
 * The figures are reported (README, engine README), never asserted.
 */
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';

const args = process.argv.slice(2);
const positional = args.filter((arg) => !arg.startsWith('--'));
const distro = args.includes('--distro');
const entry = resolve(positional[0] ?? 'dist/functions/index.js');
const runs = Number(positional[1] ?? 7);
// An unreachable endpoint: loading is measured, nothing is sent.
const connectionString = 'InstrumentationKey=00000000-0000-0000-0000-000000000000;IngestionEndpoint=https://127.0.0.1:9/';

const startDistro = `if (process.env.APPLICATIONINSIGHTS_CONNECTION_STRING) {
  require(require.resolve('applicationinsights', { paths: [process.cwd()] })).useAzureMonitor({ azureMonitorExporterOptions: { connectionString: process.env.APPLICATIONINSIGHTS_CONNECTION_STRING } });
  delete process.env.APPLICATIONINSIGHTS_CONNECTION_STRING;
}`;
const probe = `const start = process.cpuUsage(); const startedAt = performance.now();
${distro ? startDistro : ''}
require(${JSON.stringify(entry)});
const used = process.cpuUsage(start);
console.log(JSON.stringify({ cpu: (used.user + used.system) / 1000, wall: performance.now() - startedAt }));`;

interface LoadTime {
  readonly cpu: number;
  readonly wall: number;
}

/** Milliseconds one fresh process spends loading the entry. */
function loadTime(env: NodeJS.ProcessEnv): LoadTime {
  const output = execFileSync(process.execPath, ['-e', probe], { env, stdio: ['ignore', 'pipe', 'ignore'] })
    .toString()
    .trim()
    .split('\n');
  return JSON.parse(output.at(-1)!) as LoadTime;
}

function median(values: number[]): { median: number; min: number; max: number } {
  const sorted = [...values].sort((a, b) => a - b);
  return { median: sorted[Math.floor(sorted.length / 2)]!, min: sorted[0]!, max: sorted.at(-1)! };
}

function report(label: string, times: LoadTime[]): void {
  const cpu = median(times.map((time) => time.cpu));
  const wall = median(times.map((time) => time.wall));
  const figure = (value: number) => value.toFixed(0).padStart(5);
  console.log(
    `${label.padEnd(30)} CPU median ${figure(cpu.median)} ms (${cpu.min.toFixed(0)}-${cpu.max.toFixed(0)})   wall median ${figure(wall.median)} ms (${wall.min.toFixed(0)}-${wall.max.toFixed(0)})   ${times.length} runs`,
  );
}

const { APPLICATIONINSIGHTS_CONNECTION_STRING: _ignored, ...withoutTelemetry } = process.env;
console.log(`cold load of ${entry}${distro ? ' (before issue 12: the applicationinsights distro)' : ''}`);
// Interleaved, so that the machine's load affects both alike.
const without: LoadTime[] = [];
const withTelemetry: LoadTime[] = [];
for (let round = 0; round < runs; round += 1) {
  without.push(loadTime(withoutTelemetry));
  withTelemetry.push(loadTime({ ...withoutTelemetry, APPLICATIONINSIGHTS_CONNECTION_STRING: connectionString }));
}
report('without a connection string', without);
report('with a connection string', withTelemetry);
