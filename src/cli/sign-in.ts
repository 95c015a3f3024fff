/**
 * @module Tokens the CLI gets itself, with @azure/identity, for the API's scope (`--scope` /
 * SIGNALBOX_SCOPE, e.g. `api://signalbox/.default`): from the Azure CLI's sign-in (`az login`), as Azure's
 * own tools do, or with `--device-code` (a code to enter at https://microsoft.com/devicelogin, for a
 * machine without a browser or without the Azure CLI). A token is reused until a minute before it expires,
 * so a command that polls asks once. Nothing is written to disk: the Azure CLI keeps its own sign-in.
 * @azure/identity is loaded only when a token is needed: a command given a token or a key never loads it.
 */
import type { AccessToken, TokenCredential } from '@azure/identity';
import { CliError, ExitCode } from './errors';

export interface SignInOptions {
  /** The API's scope, `api://<api>/.default` for its app roles. */
  readonly scope: string;
  /** Sign in with a device code instead of the Azure CLI's sign-in. */
  readonly deviceCode?: boolean;
  /** The Entra ID tenant (id or domain); @default the Azure CLI's, or `organizations` for a device code */
  readonly tenantId?: string;
  /** Where the device code's instructions go (stderr: stdout may be a token being captured). */
  readonly say?: (message: string) => void;
}

/** Refused by the identity provider, or nobody signed in: the API would refuse too (exit code 3). */
export class SignInError extends CliError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(ExitCode.api, message, options);
  }
}

const RENEW_BEFORE_EXPIRY_MS = 60_000;

async function credentialFor(options: SignInOptions): Promise<TokenCredential> {
  const { AzureCliCredential, DeviceCodeCredential } = await import('@azure/identity');
  if (!options.deviceCode) return new AzureCliCredential(options.tenantId ? { tenantId: options.tenantId } : {});
  const say = options.say ?? ((message: string) => process.stderr.write(`${message}\n`));
  return new DeviceCodeCredential({ tenantId: options.tenantId ?? 'organizations', userPromptCallback: (info) => say(info.message) });
}

/** A function that answers a valid access token for the scope, asking the credential only when needed. */
export function tokenSource(options: SignInOptions): { readonly getToken: () => Promise<AccessToken>; readonly source: string } {
  const source = options.deviceCode ? 'a device code' : 'the Azure CLI';
  let credential: Promise<TokenCredential> | undefined;
  let current: AccessToken | undefined;
  return {
    source,
    async getToken() {
      if (current && current.expiresOnTimestamp - RENEW_BEFORE_EXPIRY_MS > Date.now()) return current;
      let token: AccessToken | null;
      try {
        credential ??= credentialFor(options);
        token = await (await credential).getToken(options.scope);
      } catch (error) {
        const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
        const hint = options.deviceCode ? '' : ': run `az login` (or use `signalbox login --device-code`)';
        throw new SignInError(`Could not get a token for ${options.scope} from ${source}${hint}. ${reason}`, { cause: error });
      }
      if (!token) throw new SignInError(`${source} gave no token for ${options.scope}`);
      current = token;
      return token;
    },
  };
}
