/**
 * Cold load of the Functions app: how long `require('dist/functions/index.js')` takes in a fresh Node
 * process (CPU time), without and with APPLICATIONINSIGHTS_CONNECTION_STRING (which loads telemetry).
 * `npm run build && npm run bench:cold-load [entry] [runs]`. Prints the median and range of each; the
 * figures are reported (README, engine README), never asserted.
 */
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';

const entry = resolve(process.argv[2] ?? 'dist/functions/index.js');
const runs = Number(process.argv[3] ?? 7);
// CPU time (user + system) of the load: on a shared machine wall time mostly measures the neighbours.
const probe = `const start = process.cpuUsage(); require(${JSON.stringify(entry)}); const used = process.cpuUsage(start); console.log((used.user + used.system) / 1000);`;
// An unreachable endpoint: loading is measured, nothing is sent.
const connectionString = 'InstrumentationKey=00000000-0000-0000-0000-000000000000;IngestionEndpoint=https://127.0.0.1:9/';

/** CPU milliseconds one fresh process spends loading the entry. */
function loadTime(env: NodeJS.ProcessEnv): number {
  const output = execFileSync(process.execPath, ['-e', probe], { env, stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim().split('\n');
  return Number(output.at(-1));
}

function report(label: string, times: number[]): void {
  const median = times[Math.floor(times.length / 2)]!;
  console.log(`${label.padEnd(34)} median ${median.toFixed(0).padStart(5)} ms CPU   (min ${times[0]!.toFixed(0)}, max ${times.at(-1)!.toFixed(0)}, ${times.length} runs)`);
}

const { APPLICATIONINSIGHTS_CONNECTION_STRING: _ignored, ...withoutTelemetry } = process.env;
console.log(`cold load of ${entry}`);
// Interleaved, so that the machine's load affects both alike.
const without: number[] = [];
const withTelemetry: number[] = [];
for (let round = 0; round < runs; round += 1) {
  without.push(loadTime(withoutTelemetry));
  withTelemetry.push(loadTime({ ...withoutTelemetry, APPLICATIONINSIGHTS_CONNECTION_STRING: connectionString }));
}
report('without a connection string', without.sort((a, b) => a - b));
report('with a connection string', withTelemetry.sort((a, b) => a - b));
