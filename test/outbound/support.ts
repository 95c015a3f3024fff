/** Helpers for the outbound tests: a client for the local servers, a test certificate, a gzip bomb. */
import type { AccessToken, TokenCredential } from '@azure/core-auth';
import { gzipSync } from 'node:zlib';
import { generate } from 'selfsigned';
import { createOutboundClient, type OutboundClientOptions, type OutboundRetry } from '../../src/outbound';

/** A token per scope, so a test can see which scope was asked for. */
export const fakeCredential: TokenCredential = {
  getToken: async (scopes): Promise<AccessToken> => ({ token: `token-for-${[scopes].flat().join(' ')}`, expiresOnTimestamp: Date.now() + 3_600_000 }),
};

let certificate: Promise<{ key: string; cert: string }> | undefined;

/** A self-signed certificate for 127.0.0.1 and localhost, made once per test file (never stored). */
export function testCertificate(): Promise<{ key: string; cert: string }> {
  certificate ??= generate([{ name: 'commonName', value: '127.0.0.1' }], {
    keySize: 2048,
    extensions: [
      {
        name: 'subjectAltName',
        altNames: [
          { type: 7, ip: '127.0.0.1' },
          { type: 2, value: 'localhost' },
        ],
      },
    ],
  }).then(({ private: key, cert }) => ({ key, cert }));
  return certificate;
}

/** Outbound client for tests against the local servers: loopback listed, fast retries, the test certificate trusted. */
export async function localHttp(options: Partial<OutboundClientOptions> & { timeoutInMs?: number; retries?: OutboundRetry[] } = {}) {
  const { timeoutInMs, retries, ...rest } = options;
  return createOutboundClient({
    allowedHosts: ['127.0.0.1'],
    defaultTimeoutInMs: timeoutInMs ?? 5000,
    retryDelayInMs: 1,
    credential: fakeCredential,
    trustedCertificates: [(await testCertificate()).cert],
    ...(retries ? { onRetry: (retry) => void retries.push(retry) } : {}),
    ...rest,
  });
}

/**
 * A gzip body of `members` concatenated gzip members of 1 MiB of zeros each: about 1 KiB per MiB on the
 * wire, so 400 members are ~410 KiB that inflate to 400 MiB (a decompressor reads members one after another).
 */
export function gzipBomb(members: number): Buffer {
  const member = gzipSync(Buffer.alloc(1024 * 1024), { level: 9 });
  return Buffer.concat(Array.from({ length: members }, () => member));
}

/** Runs `work` while sampling the resident set size; returns the result and the peak growth in bytes. */
export async function measurePeakRss<T>(work: () => Promise<T>): Promise<{ result: T; peakGrowthInBytes: number }> {
  globalThis.gc?.();
  const baseline = process.memoryUsage.rss();
  let peak = baseline;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 2);
  try {
    const result = await work();
    peak = Math.max(peak, process.memoryUsage.rss());
    return { result, peakGrowthInBytes: peak - baseline };
  } finally {
    clearInterval(sampler);
  }
}
