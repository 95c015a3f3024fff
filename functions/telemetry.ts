/**
 * @module Telemetry of the Functions app, the way the Azure Functions OpenTelemetry samples do it:
 * host.json sets `"telemetryMode": "OpenTelemetry"`, so the host and this worker send one kind of
 * telemetry; here a tracer provider and a logger provider export to Application Insights through
 * `@azure/monitor-opentelemetry-exporter`, and `@azure/functions-opentelemetry-instrumentation` (with
 * the HTTP instrumentation it expects) ties spans and `context.log` lines to each invocation.
 * Signalbox's own spans (`<Component>.<method>`) go through @opentelemetry/api.
 *
 * Nothing is loaded without APPLICATIONINSIGHTS_CONNECTION_STRING (a laptop, a test). The
 * `applicationinsights` distro, which the project keeps as a dependency, is loaded nowhere: it registers
 * the same exporter behind a full OpenTelemetry SDK (metrics, live metrics, a dozen instrumentations)
 * and cost seconds of cold start (see bench/cold-load.bench.ts and the engine README).
 */
import type { Attributes } from '@opentelemetry/api';
import { withSpan as withEngineSpan } from '../src/engine/runtime';
import { readSetting, type Environment } from '../src/host/settings';

export interface Telemetry {
  /** Sends what is buffered (tests; the host flushes on its own as the worker stops). */
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

let started: Telemetry | undefined;

/** Starts exporting once per worker when a connection string is set; undefined when telemetry is off. */
export function startTelemetry(env: Environment = process.env): Telemetry | undefined {
  if (started) return started;
  const connectionString = readSetting('APPLICATIONINSIGHTS_CONNECTION_STRING', env);
  if (!connectionString) return undefined;
  // Loaded only here, so a worker without telemetry never pays for them.
  const { AzureMonitorLogExporter, AzureMonitorTraceExporter } = require('@azure/monitor-opentelemetry-exporter') as typeof import('@azure/monitor-opentelemetry-exporter');
  const { AzureFunctionsInstrumentation } = require('@azure/functions-opentelemetry-instrumentation') as typeof import('@azure/functions-opentelemetry-instrumentation');
  const { HttpInstrumentation } = require('@opentelemetry/instrumentation-http') as typeof import('@opentelemetry/instrumentation-http');
  const { registerInstrumentations } = require('@opentelemetry/instrumentation') as typeof import('@opentelemetry/instrumentation');
  const { BatchLogRecordProcessor, LoggerProvider } = require('@opentelemetry/sdk-logs') as typeof import('@opentelemetry/sdk-logs');
  const { BatchSpanProcessor, NodeTracerProvider } = require('@opentelemetry/sdk-trace-node') as typeof import('@opentelemetry/sdk-trace-node');

  const credential = entraCredential(readSetting('APPLICATIONINSIGHTS_AUTHENTICATION_STRING', env));
  const exporterOptions = { connectionString, ...(credential ? { credential } : {}) };
  const tracerProvider = new NodeTracerProvider({ spanProcessors: [new BatchSpanProcessor(new AzureMonitorTraceExporter(exporterOptions))] });
  tracerProvider.register();
  const loggerProvider = new LoggerProvider({ processors: [new BatchLogRecordProcessor({ exporter: new AzureMonitorLogExporter(exporterOptions) })] });
  registerInstrumentations({ tracerProvider, loggerProvider, instrumentations: [new HttpInstrumentation(), new AzureFunctionsInstrumentation()] });
  started = {
    flush: async () => {
      await Promise.all([tracerProvider.forceFlush(), loggerProvider.forceFlush()]);
    },
    shutdown: async () => {
      await Promise.all([tracerProvider.shutdown(), loggerProvider.shutdown()]);
    },
  };
  return started;
}

/**
 * With local authentication off (infra), the exporter needs a token: `Authorization=AAD;ClientId=...`
 * names the managed identity, as the Functions host itself reads it.
 */
function entraCredential(authenticationString: string | undefined) {
  if (!authenticationString) return undefined;
  const pairs = new Map<string, string>();
  for (const pair of authenticationString.split(';')) {
    const [key = '', value = ''] = pair.split('=').map((part) => part.trim());
    pairs.set(key.toLowerCase(), value);
  }
  if (pairs.get('authorization')?.toUpperCase() !== 'AAD') return undefined;
  const { ManagedIdentityCredential } = require('@azure/identity') as typeof import('@azure/identity');
  const clientId = pairs.get('clientid');
  return clientId ? new ManagedIdentityCredential({ clientId }) : new ManagedIdentityCredential();
}

export interface SpanIds {
  readonly operationId?: string;
  readonly instanceId?: string;
}

/** Runs `work` in a span named `<Component>.<method>` with the ids; a failure is recorded and rethrown. */
export function withSpan<T>(name: string, ids: SpanIds, work: () => Promise<T>): Promise<T> {
  const attributes: Attributes = {};
  if (ids.operationId !== undefined) attributes.operationId = ids.operationId;
  if (ids.instanceId !== undefined) attributes.instanceId = ids.instanceId;
  return withEngineSpan(name, attributes, () => work());
}

// Started on import: index.ts imports this module first, before the modules the instrumentations patch.
startTelemetry();
