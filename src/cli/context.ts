/** @module What every command gets: the global options resolved, the output, and the API client. */
import { ApiClient } from './api';
import type { Output } from './output';
import { tokenSource } from './sign-in';

export const DEFAULT_URL = 'http://127.0.0.1:7071/api';

/** Options every command takes (`--url`, `--key`, `--json`). */
export interface GlobalOptions {
  readonly url: string;
  readonly key?: string;
  /** An access token for the API, sent as `Authorization: Bearer`. */
  readonly token?: string;
  /** Without `token`: the API's scope, for which the CLI gets a token from the Azure CLI's sign-in (sign-in.ts). */
  readonly scope?: string;
  readonly json?: boolean;
  /** Seconds each request may take, its response body included. */
  readonly timeout?: number;
  /** The tenant every command is for (`--tenant`, SIGNALBOX_TENANT). */
  readonly tenant?: string;
}

export class CommandContext {
  readonly json: boolean;
  private client: ApiClient | undefined;

  constructor(
    readonly globals: GlobalOptions,
    readonly output: Output,
  ) {
    this.json = globals.json === true;
  }

  /** The API client, made on first use: offline commands never need one. */
  get api(): ApiClient {
    this.client ??= new ApiClient({
      baseUrl: this.globals.url,
      ...(this.globals.key ? { apiKey: this.globals.key } : {}),
      ...(this.globals.token ? { token: this.globals.token } : {}),
      ...(!this.globals.token && this.globals.scope ? { getToken: signedIn(this.globals.scope) } : {}),
      ...(this.globals.timeout ? { timeoutInMs: this.globals.timeout * 1000 } : {}),
      ...(this.globals.tenant ? { tenant: this.globals.tenant } : {}),
    });
    return this.client;
  }
}

/** Tokens from the Azure CLI's sign-in for `scope`, as bearer tokens. */
function signedIn(scope: string): () => Promise<string> {
  const source = tokenSource({ scope });
  return async () => (await source.getToken()).token;
}
