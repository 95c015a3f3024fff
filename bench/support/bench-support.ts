/**
 * @module What the benches share: a JSON request to the API as a client sends it, percentiles, the load
 * average each figure is reported with, and the start-up that runs a bench's main and fails the process on
 * any error.
 */
import { loadavg } from 'node:os';

/** A response body as the benches read it (any shape: each bench knows what it asked for). */
export type Json = any;

/**
 * A request to the API with a JSON body (when given) and X-Signalbox-Client: the server refuses a
 * state-changing request without a JSON body type or that header (web pages cannot send either).
 */
export async function json(url: string, method = 'GET', body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: Json }> {
  const response = await fetch(url, {
    method,
    headers: { 'x-signalbox-client': 'bench', ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

/** The `p`th percentile of values sorted ascending (nearest rank). */
export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** The 1, 5 and 15 minute load averages, as every figure is reported with them (`7.9 8.1 5.7`). */
export function loadAverage(): string {
  return loadavg()
    .map((load) => load.toFixed(1))
    .join(' ');
}

/** Runs a bench's main; any failure is printed and fails the process. */
export function runBench(main: () => Promise<void>): void {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
