/**
 * Entry point of `npm start`: the local server on http://127.0.0.1:7071 (PORT to change it), with an
 * embedded Azurite under ./.azurite unless SIGNALBOX_STORAGE or AzureWebJobsStorage names a storage.
 */
import { createConsoleLogger } from './logger';
import { startLocalHost } from './local-host';
import { startupMessage } from './startup-message';

async function main(): Promise<void> {
  const logger = createConsoleLogger();
  const host = await startLocalHost({ logger });
  for (const line of startupMessage(host.url, host.azurite)) console.log(line);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info('stopping', { signal });
    host.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error('stop failed', { error: String(error) });
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((error: unknown) => {
  console.error(`Signalbox failed to start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
