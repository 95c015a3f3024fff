/**
 * An external service for flow-control tests: each call names its key in `context.customer` (the body the
 * `invokeExternalService` action sends with `contextItemsToInclude: ['customer']`), and the service counts the
 * calls in flight per key at every call, against a limit. A killed caller's socket closes, so its call is no
 * longer in flight. Answers `{}` after `delayInMs`.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface InFlightService {
  readonly url: string;
  /** Calls that found their key already at the limit. */
  readonly violations: () => number;
  /** The most calls of one key in flight at once. */
  readonly maxSeen: () => number;
  readonly calls: () => number;
  close(): Promise<void>;
}

export async function startInFlightService(limit: number, delayInMs: number): Promise<InFlightService> {
  const inFlight = new Map<string, number>();
  let violations = 0;
  let maxSeen = 0;
  let calls = 0;
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const key = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { context: { customer: string } }).context.customer;
      const now = (inFlight.get(key) ?? 0) + 1;
      inFlight.set(key, now);
      calls += 1;
      maxSeen = Math.max(maxSeen, now);
      if (now > limit) violations += 1;
      let left = false;
      const leave = () => {
        if (left) return;
        left = true;
        inFlight.set(key, (inFlight.get(key) ?? 1) - 1);
      };
      response.on('close', leave);
      setTimeout(() => {
        leave();
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      }, delayInMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/work`,
    violations: () => violations,
    maxSeen: () => maxSeen,
    calls: () => calls,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
