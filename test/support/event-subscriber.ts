/**
 * A CloudEvents subscriber on loopback for the hosts' event tests: every request's path, headers and
 * JSON body are handed to `onEvent`, which answers it. One server of this shape, so each suite writes
 * only what it records and how it answers.
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LoopbackSubscriber {
  /** `http://127.0.0.1:<port>`, without a trailing slash. */
  readonly url: string;
  stop(): Promise<void>;
}

export async function startSubscriber(onEvent: (path: string, headers: IncomingHttpHeaders, body: unknown, response: ServerResponse) => void): Promise<LoopbackSubscriber> {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => onEvent(request.url ?? '/', request.headers, JSON.parse(Buffer.concat(chunks).toString('utf8')), response));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
