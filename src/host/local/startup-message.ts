/**
 * @module What `npm start` says when it is ready: where the API and the console are, where the data
 * lives and on which ports Azurite serves it (and, when Azurite's usual ports were taken, that it moved),
 * and how to start again from nothing.
 */
import type { RunningAzurite } from './azurite';

function portsText(ports: { blobPort: number; queuePort: number; tablePort: number }): string {
  return `Blob ${ports.blobPort}, Queue ${ports.queuePort}, Table ${ports.tablePort}`;
}

export function startupMessage(url: string, azurite: RunningAzurite | undefined): string[] {
  const lines = [`Signalbox is listening on ${url}/api (health: ${url}/api/health; web console: ${url}/console/)`];
  if (!azurite) {
    lines.push('Data: in the storage that SIGNALBOX_STORAGE (or AzureWebJobsStorage) names');
    return lines;
  }
  lines.push(`Data: ${azurite.location ?? 'in memory'}, served by Azurite on ${portsText(azurite)} (npm run reset, with the server stopped, deletes it)`);
  if (azurite.movedFrom) {
    lines.push(`Azurite's usual ports (${portsText(azurite.movedFrom)}) were taken, so it runs on ${portsText(azurite)}; point Storage Explorer there (later starts keep these)`);
  }
  return lines;
}
