/**
 * @module The last step of the pipeline: one `fetch`, with the body read as JSON when it is JSON.
 * Redirects are not followed: the allow-list checked this URL only, and a redirect could lead anywhere
 * (and carry a managed-identity token there). A 3xx answer is therefore a non-2xx status, a fault.
 */
import type { ExternalRequest, ExternalResponse } from './types';

export type FetchLike = (url: string, init: { method: string; headers: Record<string, string>; body?: string; signal?: AbortSignal; redirect: 'manual' }) => Promise<{
  status: number;
  headers: { get(name: string): string | null };
  text(): Promise<string>;
}>;

export function fetchTransport(fetchImpl: FetchLike): (request: ExternalRequest) => Promise<ExternalResponse> {
  return async (request) => {
    const response = await fetchImpl(request.url, {
      method: request.method,
      headers: { ...request.headers },
      redirect: 'manual',
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
