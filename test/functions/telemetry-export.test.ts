/**
 * With a connection string, the Functions app registers a real OpenTelemetry tracer provider (exporting
 * through @azure/monitor-opentelemetry-exporter), so Signalbox's spans are recorded. And the cold path
 * stays light: loading the app never loads the `applicationinsights` distro or the Azure Monitor
 * OpenTelemetry SDK it wraps. (The exporter only speaks HTTPS, so its network leg is not exercised here.)
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { isSpanContextValid, trace } from '@opentelemetry/api';
import { startTelemetry, withSpan, type Telemetry } from '../../functions/telemetry';

// Child processes (a server killed and restarted; tsx loading the app twice) are slow on a loaded
// machine: a longer budget than jest's 60 s, with the assertions unchanged.
jest.setTimeout(180_000);

let telemetry: Telemetry | undefined;

afterAll(async () => {
  await telemetry?.shutdown();
  trace.disable();
});

it('registers a recording tracer provider when a connection string is set, once per worker', async () => {
  const env = { APPLICATIONINSIGHTS_CONNECTION_STRING: 'InstrumentationKey=00000000-0000-0000-0000-000000000001;IngestionEndpoint=https://127.0.0.1:9/' };
  const outside = trace.getTracer('probe').startSpan('before');
  expect(isSpanContextValid(outside.spanContext())).toBe(false); // nothing registered yet: a no-op span
  telemetry = startTelemetry(env);
  expect(telemetry).toBeDefined();
  expect(startTelemetry(env)).toBe(telemetry);
  const recorded = await withSpan('OperationActivities.applyTrigger', { operationId: 'op-telemetry' }, async () => trace.getActiveSpan());
  expect(recorded && isSpanContextValid(recorded.spanContext())).toBe(true);
  expect(recorded?.isRecording()).toBe(false); // ended by withSpan
});

it('loads neither applicationinsights nor @azure/monitor-opentelemetry when the app loads, with or without a connection string', async () => {
  const repo = join(__dirname, '..', '..');
  const probe = `require('./functions/index.ts'); const loaded = (name) => Object.keys(require.cache).some((path) => path.includes('/node_modules/' + name + '/')); console.log(JSON.stringify({ applicationinsights: loaded('applicationinsights'), distro: loaded('@azure/monitor-opentelemetry'), exporter: loaded('@azure/monitor-opentelemetry-exporter') }));`;
  const run = async (env: Record<string, string>) => {
    const { stdout } = await promisify(execFile)(join(repo, 'node_modules', '.bin', 'tsx'), ['-e', probe], { cwd: repo, env: { ...process.env, ...env } });
    return JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, boolean>;
  };
  const { APPLICATIONINSIGHTS_CONNECTION_STRING: _unset, ...withoutTelemetry } = process.env;
  expect(await run(withoutTelemetry as Record<string, string>)).toEqual({ applicationinsights: false, distro: false, exporter: false });
  expect(await run({ APPLICATIONINSIGHTS_CONNECTION_STRING: 'InstrumentationKey=00000000-0000-0000-0000-000000000001;IngestionEndpoint=http://127.0.0.1:9/' })).toEqual({
    applicationinsights: false,
    distro: false,
    exporter: true,
  });
});

it('puts the Functions host in OpenTelemetry mode (host.json), so host and worker send one kind of telemetry', () => {
  const hostJson = JSON.parse(readFileSync(join(__dirname, '..', '..', 'host.json'), 'utf8')) as { telemetryMode?: string };
  expect(hostJson.telemetryMode).toBe('OpenTelemetry');
});
