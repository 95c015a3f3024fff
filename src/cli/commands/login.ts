/**
 * @module `signalbox login [--device-code] [--tenant <id>] [--print-token]`: gets a token for the API's
 * scope (`--scope` / SIGNALBOX_SCOPE) with @azure/identity, from the Azure CLI's sign-in or with a device
 * code, and asks the API who it takes you for (GET /api/me). Other commands then get their own tokens the
 * same way from the Azure CLI (set SIGNALBOX_SCOPE once); a device-code token is printed with
 * `--print-token`, for SIGNALBOX_TOKEN, since the CLI keeps no token on disk.
 */
import type { Command } from 'commander';
import { examples, type ContextOf } from '../command-options';
import { ApiClient } from '../api';
import type { CommandContext } from '../context';
import { UsageError } from '../errors';
import { tokenSource } from '../sign-in';

export interface LoginOptions {
  readonly deviceCode?: boolean;
  readonly tenant?: string;
  readonly printToken?: boolean;
}

export async function loginCommand(context: CommandContext, options: LoginOptions): Promise<void> {
  const { scope } = context.globals;
  if (!scope) throw new UsageError("signalbox login needs the API's scope: --scope api://<api>/.default (or SIGNALBOX_SCOPE)");
  const source = tokenSource({
    scope,
    ...(options.deviceCode ? { deviceCode: true } : {}),
    ...(options.tenant ? { tenantId: options.tenant } : {}),
    say: (message) => context.output.stderr.write(`${message}\n`),
  });
  const token = await source.getToken();
  const api = new ApiClient({ baseUrl: context.globals.url, token: token.token, ...(context.globals.timeout ? { timeoutInMs: context.globals.timeout * 1000 } : {}) });
  const actor = await api.whoAmI();
  const expiresAt = new Date(token.expiresOnTimestamp).toISOString();
  if (options.printToken) return void context.output.stdout.write(`${token.token}\n`);
  if (context.json) return context.output.printJson({ actor, source: source.source, expiresAt });
  context.output.print(
    `Signed in as ${actor.name} (${actor.id}) to ${api.baseUrl}, with ${source.source}; token valid until ${expiresAt}`,
    `Roles: ${actor.roles.length > 0 ? actor.roles.join(', ') : 'none'}`,
  );
}

/** `signalbox login`: options, examples and the action. */
export function defineLoginCommand(program: Command, contextOf: ContextOf): void {
  program
    .command('login')
    .description("get a token for the API's scope with the Azure CLI's sign-in (or a device code) and show who the API takes you for")
    .option('--device-code', 'sign in with a code entered in a browser elsewhere, instead of the Azure CLI')
    .option('--tenant <tenantId>', 'the Entra ID tenant (default: the Azure CLI\'s; "organizations" for a device code)')
    .option('--print-token', 'print only the token, for SIGNALBOX_TOKEN')
    .addHelpText(
      'after',
      examples(
        'az login && export SIGNALBOX_SCOPE=api://signalbox/.default && signalbox login',
        'export SIGNALBOX_TOKEN=$(signalbox login --scope api://signalbox/.default --device-code --print-token)',
      ),
    )
    .action((options: LoginOptions, command: Command) => loginCommand(contextOf(command), options));
}
