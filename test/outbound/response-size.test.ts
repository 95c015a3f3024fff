/**
 * Outbound response bodies are bounded (1 MiB after decompression by default): a service that answers
 * 100 MB, or a gzip bomb, faults the instance, and neither is read (nor inflated) past the limit.
 * Against real local HTTP servers.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { validateDefinition } from '../../src/engine';
import { DEFAULT_MAX_RESPONSE_BYTES } from '../../src/outbound';
import { instanceIn, processTrigger, testEffects, trigger } from '../engine/support';
import { gzipBomb, localHttp, measurePeakRss } from './support';

const MiB = 1024 * 1024;

/** A server whose every answer is `answer(response)`; counts what it managed to write. */
async function serverAnswering(answer: (response: ServerResponse, sent: { bytes: number; done: Promise<void> }) => void) {
  const sent = { bytes: 0, done: Promise.resolve() };
  const server = createServer((request, response) => {
    request.resume();
    sent.done = new Promise((resolve) => response.once('close', resolve));
    answer(response, sent);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    sent,
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

/** Writes `total` bytes of spaces in 64 KiB chunks, waiting for the client to take each one. */
async function stream(response: ServerResponse, total: number, sent: { bytes: number }): Promise<void> {
  const chunk = Buffer.alloc(64 * 1024, ' ');
  let closed = false;
  response.once('close', () => (closed = true));
  while (sent.bytes < total && !closed) {
    sent.bytes += chunk.length;
    if (!response.write(chunk)) {
      await new Promise<void>((resolve) => {
        const resume = () => {
          response.off('drain', resume).off('close', resume);
          resolve();
        };
        response.once('drain', resume).once('close', resume);
      });
    }
  }
  response.end();
}

async function gate(url: string, http: Awaited<ReturnType<typeof localHttp>>) {
  const def = validateDefinition({
    id: 'big',
    displayName: 'big',
    initialStateId: 'a',
    states: { a: { transitions: [{ id: 't', targetStateId: 'b', conditions: [{ type: 'invokeExternalService', url, method: 'GET', contextItemsToInclude: [] }] }] }, b: {} },
  });
  return processTrigger(def, instanceIn(def, 'a'), trigger('Go'), testEffects({ http }));
}

describe('outbound response size limit', () => {
  it('is 1 MiB, after decompression', () => {
    expect(DEFAULT_MAX_RESPONSE_BYTES).toBe(MiB);
  });

  it('a 100 MB body faults the instance, and the client stops reading soon after the limit', async () => {
    const server = await serverAnswering((response, sent) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      void stream(response, 100 * MiB, sent);
    });
    try {
      const result = await gate(server.url, await localHttp());
      expect(result).toMatchObject({ outcome: 'faulted', instance: { stateId: 'a', status: 'faulted' } });
      expect(result.instance.fault?.message).toContain(`is larger than ${MiB} bytes, the limit of a response body`);
      await server.sent.done; // the connection was dropped, not drained
      expect(server.sent.bytes).toBeLessThan(32 * MiB);
    } finally {
      await server.close();
    }
  });

  it("a request for the status only takes a 2xx with an endless body, without reading it (a subscriber's answer)", async () => {
    const server = await serverAnswering((response, sent) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      void stream(response, 100 * MiB, sent);
    });
    try {
      const http = await localHttp();
      const response = await http.send({ url: server.url, method: 'POST', headers: {}, body: '{}', statusOnly: true });
      expect(response).toEqual({ status: 200, body: undefined });
      await server.sent.done; // dropped, not drained
      expect(server.sent.bytes).toBeLessThan(32 * MiB);
      // The same answer to a request that reads the body is over the limit.
      await expect(http.send({ url: server.url, method: 'POST', headers: {}, body: '{}' })).rejects.toThrow(/is larger than/);
    } finally {
      await server.close();
    }
  });

  it('a Content-Length over the limit is refused before the body is read', async () => {
    const server = await serverAnswering((response, sent) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': String(100 * MiB) });
      void stream(response, 100 * MiB, sent);
    });
    try {
      const result = await gate(server.url, await localHttp());
      expect(result.instance.fault?.message).toContain(`is larger than ${MiB} bytes`);
      await server.sent.done;
      expect(server.sent.bytes).toBeLessThan(32 * MiB);
    } finally {
      await server.close();
    }
  });

  it('a gzip bomb (410 KiB that inflate to 400 MiB) faults the instance without being inflated: the RSS stays bounded', async () => {
    const bomb = gzipBomb(400);
    const server = await serverAnswering((response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': String(bomb.length) });
      response.end(bomb);
    });
    try {
      const http = await localHttp();
      const { result, peakGrowthInBytes } = await measurePeakRss(() => gate(server.url, http));
      expect(result.outcome).toBe('faulted');
      expect(result.instance.fault?.message).toContain(`is larger than ${MiB} bytes`);
      // Reading it all takes 400 MiB or more; the limit keeps the growth to a few MiB (noise included).
      expect(peakGrowthInBytes).toBeLessThan(64 * MiB);
    } finally {
      await server.close();
    }
  });

  it('a compressed body under the limit is inflated and used', async () => {
    const body = gzipSync(`${' '.repeat(MiB - 100)}true`);
    const server = await serverAnswering((response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      response.end(body);
    });
    try {
      await expect(gate(server.url, await localHttp())).resolves.toMatchObject({ outcome: 'transitioned' });
      await expect(gate(server.url, await localHttp({ maxResponseBytes: 1000 }))).resolves.toMatchObject({
        outcome: 'faulted',
        instance: { fault: { message: expect.stringContaining('is larger than 1000 bytes') } },
      });
    } finally {
      await server.close();
    }
  });
});
