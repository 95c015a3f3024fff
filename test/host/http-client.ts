/** A tiny HTTP client for black-box tests of the local server over real loopback HTTP. */
export interface HttpResult {
  readonly status: number;
  readonly headers: Headers;
  readonly body: any;
  readonly text: string;
}

export function httpClient(baseUrl: string, defaultHeaders: Record<string, string> = {}) {
  async function request(method: string, path: string, options: { json?: unknown; body?: string; headers?: Record<string, string> } = {}): Promise<HttpResult> {
    // No custom header: the server needs none (decision 0019), so every HTTP test sends what a plain client sends.
    const headers: Record<string, string> = { ...defaultHeaders, ...options.headers };
    let body = options.body;
    if (options.json !== undefined) {
      body = JSON.stringify(options.json);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(`${baseUrl}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) });
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: response.status, headers: response.headers, body: parsed, text };
  }

  /** Polls an operation until it is finished (200), within a bounded number of polls. */
  async function waitForOperation(operationId: string, maxPolls = 400): Promise<HttpResult> {
    for (let poll = 0; poll < maxPolls; poll += 1) {
      const result = await request('GET', `/api/operations/${encodeURIComponent(operationId)}`);
      if (result.status !== 202) return result;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error(`operation ${operationId} did not finish within ${maxPolls} polls`);
  }

  return { request, waitForOperation };
}
