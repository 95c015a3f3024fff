/**
 * The local server in process on in-memory storage, for HTTP-level behaviour that needs no storage
 * (validation, problems, manners): the same node:http server, route table and dispatcher as `npm start`,
 * on a free loopback port, with the in-memory ports of `signalbox/testing` and the in-process operation
 * runner. What is about storage stays on Azurite (test/support/local-host.ts).
 */
import { startLocalServer, type LocalServerOptions } from '../../src/host/local/local-server';
import { LocalOperationRunner } from '../../src/host/local/local-operation-runner';
import { silentLogger } from '../../src/host/local/logger';
import type { Environment } from '../../src/host/settings';
import { createHostCore } from '../../src/host/host-services';
import { createInMemoryPorts } from '../../src/testing';
import { httpClient } from '../host/http-client';

export interface InMemoryTestHost {
  readonly url: string;
  readonly api: ReturnType<typeof httpClient>;
  stop(): Promise<void>;
}

/** `env`: settings the host core reads (SIGNALBOX_CONSOLE_*, ...). @default none */
export async function startInMemoryTestHost({ env = {}, ...options }: Pick<LocalServerOptions, 'apiKey' | 'cors' | 'access'> & { env?: Environment } = {}): Promise<InMemoryTestHost> {
  const core = createHostCore({ ports: { ...createInMemoryPorts(), checkHealth: async () => true }, logger: silentLogger, env });
  const runner = new LocalOperationRunner(silentLogger, (launcher) => core.activitiesFor(launcher), { now: () => core.engine.options.clock.now() });
  const stopping = new AbortController();
  const server = await startLocalServer(core.servicesFor(runner, undefined, stopping.signal), { port: 0, logger: silentLogger, ...options });
  return {
    url: server.url,
    api: httpClient(server.url),
    async stop() {
      stopping.abort();
      await server.close();
      await runner.stop();
    },
  };
}
