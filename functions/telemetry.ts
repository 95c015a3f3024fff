/**
 * @module Telemetry of the Functions app. The host already sends requests and logs to Application
 * Insights; this adds Signalbox's own spans (`<Component>.<method>`, with the operation and instance
 * ids) through @opentelemetry/api, which is a no-op until a provider is registered. Azure Monitor is
 * registered only when APPLICATIONINSIGHTS_CONNECTION_STRING is set: `useAzureMonitor()` throws
 * without one, and a laptop or a test has none.
 */
import type { Attributes } from '@opentelemetry/api';
import { withSpan as withEngineSpan } from '../src/engine/tracing';
import { readSetting, type Environment } from '../src/host/settings';

let started = false;

/** Starts Azure Monitor once per worker when a connection string is set; true when it runs. */
export function startTelemetry(env: Environment = process.env): boolean {
  if (started) return true;
  const connectionString = readSetting('APPLICATIONINSIGHTS_CONNECTION_STRING', env);
  if (!connectionString) return false;
  // Loaded only here: the OpenTelemetry SDK it brings is large, and unused without a connection string.
  const { useAzureMonitor } = require('applicationinsights') as typeof import('applicationinsights');
  const credential = entraCredential(readSetting('APPLICATIONINSIGHTS_AUTHENTICATION_STRING', env));
  useAzureMonitor({ azureMonitorExporterOptions: { connectionString, ...(credential ? { credential } : {}) } });
  started = true;
  return true;
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

// Started on import: index.ts imports this module first, before the SDKs Azure Monitor instruments.
startTelemetry();
