/**
 * A request with exactly the headers given, over real loopback HTTP: what curl, a form or an attacker's
 * page would send. fetch sets headers of its own (`sec-fetch-mode`) and refuses to set Host or Origin.
 */
import { request as httpRequest } from 'node:http';

export interface RawAnswer {
  readonly status: number;
  readonly text: string;
}

/** Sends `method path` to `baseUrl` with only `headers` (and the body's length when it has one). */
export function rawRequest(baseUrl: string, method: string, path: string, headers: Record<string, string>, body?: string): Promise<RawAnswer> {
  const url = new URL(path, baseUrl);
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      { host: url.hostname, port: url.port, method, path: url.pathname + url.search, headers: { ...headers, ...(body !== undefined ? { 'content-length': String(Buffer.byteLength(body)) } : {}) } },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/** The headers curl sends by itself (`curl -X DELETE http://127.0.0.1:7071/...`), for the server's Host. */
export function curlHeaders(baseUrl: string): Record<string, string> {
  return { host: new URL(baseUrl).host, 'user-agent': 'curl/8.5.0', accept: '*/*' };
}
