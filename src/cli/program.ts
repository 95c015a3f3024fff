/**
 * @module The command line's root (commander): the global options, the help and the exit codes; each
 * command module in `commands/` defines its own arguments, options, `--help` examples and action, in the
 * order `--help` lists them.
 */
import { Command, Option } from 'commander';
import { examples, type ContextOf } from './command-options';
import { CommandContext, DEFAULT_URL, type GlobalOptions } from './context';
import { positiveNumber } from './inputs';
import type { Output } from './output';
import { defineBulkCommand } from './commands/bulk';
import { defineRetryCommand } from './commands/retry';
import { defineTaskCommands } from './commands/tasks';
import { defineRedeliverCommand } from './commands/events';
import { defineDeleteWorkflowCommand } from './commands/delete-workflow';
import { defineDiagramCommand } from './commands/diagram';
import { defineLoginCommand } from './commands/login';
import { defineInstanceCommands } from './commands/instance';
import { defineInstancesCommand } from './commands/instances';
import { defineMigrateCommand } from './commands/migrate';
import { defineOperationsCommands } from './commands/operations';
import { definePushCommand } from './commands/push';
import { defineSendCommands } from './commands/send';
import { defineStartCommand } from './commands/start';
import { defineValidateCommand } from './commands/validate';
import { defineTenantsCommand } from './commands/tenants';
import { defineWatchCommand } from './commands/watch';
import { defineWhyCommands } from './commands/why';
import { defineCostCommand } from './commands/cost';
import { defineFlowCommand } from './commands/flow';

export function buildProgram(output: Output): Command {
  const program = new Command('signalbox');
  // The context is made per action: global options may follow the command (`signalbox instances --json`).
  const contextOf: ContextOf = (command) => new CommandContext(command.optsWithGlobals<GlobalOptions>(), output);

  program
    .description(
      'The Signalbox command line: check, draw and push workflow definitions, start instances, send triggers (or dry-run them) and watch them fan out, migrate, suspend, cancel and delete instances, one or in bulk.',
    )
    .configureOutput({ writeOut: (text) => output.stdout.write(output.layout(text)), writeErr: (text) => output.stderr.write(output.layout(text)) })
    .exitOverride()
    .showHelpAfterError('(add --help for usage)')
    .showSuggestionAfterError(true)
    .addOption(new Option('--url <url>', 'the API base URL, /api included').env('SIGNALBOX_URL').default(DEFAULT_URL))
    .addOption(new Option('--key <key>', 'API key, sent as x-functions-key').env('SIGNALBOX_API_KEY'))
    .addOption(
      new Option(
        '--token <token>',
        'access token for the API (Microsoft Entra ID), sent as Authorization: Bearer; e.g. $(az account get-access-token --scope api://signalbox/.default --query accessToken -o tsv)',
      ).env('SIGNALBOX_TOKEN'),
    )
    .addOption(
      new Option('--scope <scope>', "without --token: the API's scope, for which the CLI gets a token from the Azure CLI's sign-in (az login), e.g. api://signalbox/.default").env('SIGNALBOX_SCOPE'),
    )
    .addOption(new Option('--tenant <tenantId>', 'the tenant every command is for (default: the default tenant, /api/...)').env('SIGNALBOX_TENANT'))
    .option('--json', 'print machine-readable JSON on stdout')
    .addOption(new Option('--timeout <seconds>', 'how long each request may take, its response body included').env('SIGNALBOX_TIMEOUT').default(30).argParser(positiveNumber('--timeout')))
    .addHelpText(
      'after',
      `\nExit codes: 0 ok, 1 invalid definition, 2 usage, 3 the API refused (or an operation failed), 4 the API cannot be reached, 5 instances faulted (an operation's, or a started one).\n` +
        examples(
          'signalbox validate examples/*.json',
          'signalbox push examples/expense-claim.json',
          'signalbox start expense-claim --id claim-42 --context \'{"claimantId":"ann"}\'',
          'signalbox send Update --subject claimant:ann --param amount=120 --wait',
          'signalbox send-to claim-42 Submit --dry-run',
          'signalbox instances --workflow expense-claim --all',
          'signalbox migrate expense-claim --from 1 --to 2 --map review=checking --dry-run',
          'signalbox bulk cancel --workflow expense-claim --state awaiting-receipts --wait',
        ),
    );

  defineValidateCommand(program, contextOf);
  defineDiagramCommand(program, contextOf);
  defineLoginCommand(program, contextOf);
  definePushCommand(program, contextOf);
  defineStartCommand(program, contextOf);
  defineSendCommands(program, contextOf);
  defineWatchCommand(program, contextOf);
  defineInstancesCommand(program, contextOf);
  defineOperationsCommands(program, contextOf);
  defineInstanceCommands(program, contextOf);
  defineDeleteWorkflowCommand(program, contextOf);
  defineMigrateCommand(program, contextOf);
  defineBulkCommand(program, contextOf);
  defineRetryCommand(program, contextOf);
  defineTaskCommands(program, contextOf);
  defineRedeliverCommand(program, contextOf);
  defineWhyCommands(program, contextOf);
  defineCostCommand(program, contextOf);
  defineFlowCommand(program, contextOf);
  defineTenantsCommand(program, contextOf);

  return program;
}
