/**
 * Starts test/support/openid-provider-process.mjs (oidc-provider, ESM only, in a process of its own) and registers
 * the console as its client once the console's URL is known:
 *
 * ```ts
 * const provider = await startOpenIdProvider({ audience: 'api://signalbox', scope: 'api://signalbox/access', users: { alice: { name: 'Alice', roles: ['Signalbox.Sender'] } } });
 * // start the server with SIGNALBOX_AUTH_ISSUERS=provider.issuer, then:
 * await provider.registerClient('signalbox-console', `${host.url}/console/`);
 * ```
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';

export interface OpenIdProviderOptions {
  readonly audience: string;
  /** The API's scope, as the console asks for it. */
  readonly scope: string;
  /** Login -> the name and app roles its tokens carry. */
  readonly users: Readonly<Record<string, { readonly name: string; readonly roles: readonly string[] }>>;
}

export interface OpenIdProvider {
  readonly issuer: string;
  /** Registers the one public client (PKCE) and starts answering. */
  registerClient(clientId: string, redirectUri: string): Promise<void>;
  close(): Promise<void>;
}

export async function startOpenIdProvider(options: OpenIdProviderOptions): Promise<OpenIdProvider> {
  const child = spawn(process.execPath, [path.join(__dirname, 'openid-provider-process.mjs')], { stdio: ['pipe', 'pipe', 'pipe'] });
  let errorOutput = '';
  child.stderr.on('data', (chunk: Buffer) => (errorOutput += chunk.toString()));
  const messages = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async (): Promise<Record<string, unknown>> => {
    const { value, done } = await messages.next();
    if (done) throw new Error(`the OpenID provider stopped: ${errorOutput}`);
    return JSON.parse(value as string) as Record<string, unknown>;
  };
  const { issuer } = (await next()) as { issuer: string };
  return {
    issuer,
    async registerClient(clientId, redirectUri) {
      child.stdin.write(`${JSON.stringify({ clientId, redirectUri, ...options })}\n`);
      const answer = await next();
      if (answer.ready !== true) throw new Error(`the OpenID provider did not start: ${errorOutput}`);
    },
    async close() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill();
      await exited;
    },
  };
}
