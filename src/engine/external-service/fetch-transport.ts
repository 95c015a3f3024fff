/** @module The last step of the pipeline: one `fetch`, with the body read as JSON when it is JSON. */
import type { ExternalRequest, ExternalResponse } from './types';

export type FetchLike = (url: string, init: { method: string; headers: Record<string, string>; body?: string; signal?: AbortSignal }) => Promise<{
  status: number;
  headers: { get(name: string): string | null };
  text(): Promise<string>;
}>;

export function fetchTransport(fetchImpl: FetchLike): (request: ExternalRequest) => Promise<ExternalResponse> {
  return async (request) => {
    const response = await fetchImpl(request.url, {
      method: request.method,
      headers: { ...request.headers },
      ...(request.body !== undefined ? { body: request.body } : {}),
      ...(request.abortSignal ? { signal: request.abortSignal } : {}),
    });
    const text = await response.text();
    if (!text) return { status: response.status, body: undefined };
    try {
      return { status: response.status, body: JSON.parse(text) as unknown };
    } catch {
      return { status: response.status, body: text };
    }
  };
}
