/**
 * The local server for HTTP tests: on the tests' Azurite, with tables and a container of its own (a unique
 * prefix, so suites never see each other's rows), quiet, on a free loopback port; and a client for it.
 */
import { startLocalHost, type LocalHost, type LocalHostOptions } from '../../src/host/local/local-host';
import { silentLogger } from '../../src/host/local/logger';
import { prefixedStorageNames, type StorageNames } from '../../src/storage/names';
import { httpClient } from '../host/http-client';
import { testConnectionString, uniquePrefix } from './storage';

export interface TestHost {
  readonly host: LocalHost;
  readonly api: ReturnType<typeof httpClient>;
  readonly storageNames: StorageNames;
}

/** `options` may add settings to `env` and override the rest. */
export async function startTestHost(label: string, options: LocalHostOptions = {}): Promise<TestHost> {
  const storageNames = options.storageNames ?? prefixedStorageNames(uniquePrefix(label));
  const host = await startLocalHost({
    port: 0,
    logger: silentLogger,
    ...options,
    storageNames,
    env: { SIGNALBOX_STORAGE: testConnectionString(), ...options.env },
  });
  return { host, api: httpClient(host.url), storageNames };
}
