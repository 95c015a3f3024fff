/**
 * @module The command tree (commander): every command, its arguments, options and `--help` examples.
 * Actions only gather the options and call the command functions in `commands/`.
 */
import { Argument, Command, Option } from 'commander';
import { CommandContext, DEFAULT_URL, type GlobalOptions } from './context';
import { collect, positiveNumber, wholeNumber } from './inputs';
import type { BulkAction, InstanceStatusName } from './api';
import type { Output } from './output';
import { diagramCommand } from './commands/diagram';
import { BULK_ACTIONS, bulkCommand } from './commands/bulk';
import { deleteWorkflowCommand } from './commands/delete-workflow';
import { cancelCommand, deleteCommand, instanceCommand, recoverCommand, resumeCommand, suspendCommand } from './commands/instance';
import { migrateCommand } from './commands/migrate';
import { instancesCommand } from './commands/instances';
import { operationsListCommand } from './commands/operations';
import { pushCommand } from './commands/push';
import { sendCommand, sendToCommand } from './commands/send';
import { startCommand } from './commands/start';
import { validateCommand } from './commands/validate';
import { watchCommand } from './commands/watch';

function examples(...lines: string[]): string {
  return `\nExamples:\n${lines.map((line) => `  $ ${line}`).join('\n')}\n`;
}

// A record, so that a status the API adds fails to compile here until it is listed. Not the engine's enum:
// that would load zod on every start of the command line.
const INSTANCE_STATUS_SET: Record<InstanceStatusName, true> = { initializing: true, waiting: true, suspended: true, faulted: true, complete: true, cancelled: true };
const INSTANCE_STATUSES = Object.keys(INSTANCE_STATUS_SET);

export function buildProgram(output: Output): Command {
  const program = new Command('signalbox');
  // The context is made per action: global options may follow the command (`signalbox instances --json`).
  const contextOf = (command: Command) => new CommandContext(command.optsWithGlobals<GlobalOptions>(), output);

  program
    .description('The Signalbox command line: check, draw and push workflow definitions, start instances, send triggers (or dry-run them) and watch them fan out, migrate, suspend, cancel and delete instances, one or in bulk.')
    .configureOutput({ writeOut: (text) => output.stdout.write(output.layout(text)), writeErr: (text) => output.stderr.write(output.layout(text)) })
    .exitOverride()
    .showHelpAfterError('(add --help for usage)')
    .showSuggestionAfterError(true)
    .addOption(new Option('--url <url>', 'the API base URL, /api included').env('SIGNALBOX_URL').default(DEFAULT_URL))
    .addOption(new Option('--key <key>', 'API key, sent as x-functions-key').env('SIGNALBOX_API_KEY'))
    .option('--json', 'print machine-readable JSON on stdout')
    .addOption(new Option('--timeout <seconds>', 'how long each request may take, its response body included').env('SIGNALBOX_TIMEOUT').default(30).argParser(positiveNumber('--timeout')))
    .addHelpText(
      'after',
      `\nExit codes: 0 ok, 1 invalid definition, 2 usage, 3 the API refused (or an operation failed), 4 the API cannot be reached, 5 instances faulted (an operation's, or a started one).\n` +
        examples(
          'signalbox validate examples/*.json',
          'signalbox push examples/expense-claim.json',
          "signalbox start expense-claim --id claim-42 --context '{\"claimantId\":\"ann\"}'",
          'signalbox send Update --subject claimant:ann --param amount=120 --wait',
          'signalbox send-to claim-42 Submit --dry-run',
          'signalbox instances --workflow expense-claim --all',
          'signalbox migrate expense-claim --from 1 --to 2 --map review=checking --dry-run',
          'signalbox bulk cancel --workflow expense-claim --state awaiting-receipts --wait',
        ),
    );

  program
    .command('validate')
    .description('check definition files offline: schema errors and analysis warnings, by file and JSON path')
    .argument('<file...>', 'workflow definition files (JSON)')
    .option('--strict', 'warnings fail the check too (exit 1)')
    .addHelpText('after', examples('signalbox validate examples/*.json', 'signalbox validate --strict claim.json', 'signalbox validate claim.json --json'))
    .action((files: string[], options, command: Command) => validateCommand(contextOf(command), files, options));

  program
    .command('diagram')
    .description('print the Mermaid stateDiagram-v2 of a definition file (offline) or of a stored workflow')
    .argument('<file|workflowId>', 'a definition file, or the id of a stored workflow')
    .option('--instance <instanceId>', "highlight this instance's current state")
    .option('--version <n>', 'a given version (default: the latest)', wholeNumber('--version'))
    .addHelpText('after', examples('signalbox diagram examples/expense-claim.json > claim.mmd', 'signalbox diagram expense-claim', 'signalbox diagram expense-claim --instance claim-42', 'signalbox diagram expense-claim --version 1'))
    .action((target: string, options, command: Command) => diagramCommand(contextOf(command), target, options));

  program
    .command('push')
    .description('create each workflow, or add a version to it (If-Match with its current ETag); a file equal to the latest version adds none; invalid files are refused before any request')
    .argument('<file...>', 'workflow definition files (JSON)')
    .option('--force', 'add a version even when the file equals the latest version')
    .addHelpText('after', examples('signalbox push examples/expense-claim.json', 'signalbox push examples/*.json --json', 'signalbox push examples/expense-claim.json --force'))
    .action((files: string[], options: { force?: boolean }, command: Command) => pushCommand(contextOf(command), files, options));

  program
    .command('start')
    .description("start an instance of a workflow's latest version")
    .argument('<workflowId>', 'the workflow')
    .option('--id <instanceId>', 'the instance id (default: generated)')
    .option('--context <json|@file>', 'the initial context, a JSON object inline or @file.json')
    .addHelpText('after', examples("signalbox start expense-claim --id claim-42 --context '{\"claimantId\":\"ann\"}'", 'signalbox start expense-claim --context @claim-context.json'))
    .action((workflowId: string, options, command: Command) => startCommand(contextOf(command), workflowId, options));

  const addTriggerOptions = (command: Command) =>
    command
      .option('--param <name=value>', 'a trigger parameter (repeatable); the value is JSON when it parses, else a string', collect)
      .option('--parameters <json|@file>', 'all parameters as a JSON object (inline or @file); --param adds to them')
      .option('--content-type <type>', 'the trigger content type')
      .option('--id <triggerId>', 'the trigger id (makes the send idempotent)')
      .option('--wait', 'follow the operation to its end: a progress bar on a terminal, then the summary and outcomes')
      .option('--dry-run', 'change nothing: show what the trigger would do to each instance (outcome, trace of conditions, context after, actions)')
      .option('--results <n>', 'per-instance outcomes to show after --wait (instances detailed by --dry-run)', wholeNumber('--results'), 10)
      .option('--no-progress', 'no progress bar, even on a terminal');

  addTriggerOptions(
    program
      .command('send')
      .description('send a trigger to every instance interested in one of its subjects')
      .argument('<name>', 'the trigger name')
      .option('--subject <subject>', 'a subject (repeatable, at least one)', collect),
  )
    .addHelpText('after', examples('signalbox send Update --subject claimant:ann --param amount=120 --param description=Train --wait', 'signalbox send Approve --subject approvers --dry-run', 'signalbox send Approve --subject approvers --id approve-2026-11 --json'))
    .action((name: string, options, command: Command) => sendCommand(contextOf(command), name, options));

  addTriggerOptions(
    program
      .command('send-to')
      .description('send a trigger to one instance (the instance id is the subject)')
      .argument('<instanceId>', 'the instance')
      .argument('<name>', 'the trigger name'),
  )
    .addHelpText('after', examples('signalbox send-to claim-42 Submit --param at=2026-11-22 --wait', 'signalbox send-to claim-42 Submit --dry-run', 'signalbox send-to claim-42 Submit --dry-run --json'))
    .action((instanceId: string, name: string, options, command: Command) => sendToCommand(contextOf(command), instanceId, name, options));

  program
    .command('watch')
    .description("follow an operation: a progress bar on a terminal, then the summary and the first per-instance outcomes")
    .argument('<operationId>', 'the operation (a trigger id)')
    .option('--results <n>', 'per-instance outcomes to show', wholeNumber('--results'), 10)
    .option('--no-progress', 'no progress bar, even on a terminal')
    .addHelpText('after', examples('signalbox watch update-1', 'signalbox watch update-1 --json'))
    .action((operationId: string, options, command: Command) => watchCommand(contextOf(command), operationId, options));

  program
    .command('instances')
    .description('list instances as a table (one page; --all for every page)')
    .option('--workflow <workflowId>', 'only instances of this workflow')
    .option('--state <stateId>', 'only instances in this state')
    .addOption(new Option('--status <status>', 'only instances with this status').choices(INSTANCE_STATUSES))
    .option('--subject <subject>', 'only instances interested in this subject')
    .option('--parent <instanceId>', 'only children of this instance')
    .option('--all', 'follow every page')
    .option('--continuation-token <token>', 'start at this page')
    .option('--page-size <n>', 'instances per page (server default 100, at most 1000)', wholeNumber('--page-size'))
    .addHelpText('after', examples('signalbox instances --workflow expense-claim --status waiting', 'signalbox instances --subject claimant:ann --all --json'))
    .action((options, command: Command) => instancesCommand(contextOf(command), options));

  const operations = program.command('operations').description('operations: triggers sent, migrations and bulk actions');
  operations
    .command('list')
    .description('list operations as a table, newest first (one page; --all for every page)')
    .addOption(new Option('--kind <kind>', 'only operations of this kind').choices(['trigger', 'migration', 'bulk']))
    .addOption(new Option('--status <status>', 'only operations with this status').choices(['notStarted', 'running', 'succeeded', 'failed']))
    .option('--workflow <workflowId>', 'only migrations and bulk actions of this workflow')
    .option('--since <time>', 'only operations created at or after this moment (ISO 8601)')
    .option('--before <time>', 'only operations created before this moment (ISO 8601)')
    .option('--all', 'follow every page')
    .option('--continuation-token <token>', 'start at this page')
    .option('--page-size <n>', 'operations per page (server default 100, at most 1000)', wholeNumber('--page-size'))
    .addHelpText('after', examples('signalbox operations list --kind bulk --status failed', 'signalbox operations list --since 2026-05-01T00:00:00Z --all --json'))
    .action((options, command: Command) => operationsListCommand(contextOf(command), options));

  program
    .command('instance')
    .description('show one instance')
    .argument('<instanceId>', 'the instance')
    .option('--history', 'with its history')
    .option('--available', 'with the triggers its current state answers')
    .addHelpText('after', examples('signalbox instance claim-42 --history', 'signalbox instance claim-42 --json'))
    .action((instanceId: string, options, command: Command) => instanceCommand(contextOf(command), instanceId, options));

  program
    .command('cancel')
    .description('cancel an instance')
    .argument('<instanceId>', 'the instance')
    .addHelpText('after', examples('signalbox cancel claim-42'))
    .action((instanceId: string, _options, command: Command) => cancelCommand(contextOf(command), instanceId));

  program
    .command('recover')
    .description('recover a faulted instance into a state (its entry conditions and actions run again)')
    .argument('<instanceId>', 'the instance')
    .requiredOption('--state <stateId>', 'the state to recover to')
    .option('--context <json|@file>', 'repair the context first: a JSON Merge Patch (RFC 7386; null removes a key), inline or @file.json')
    .addHelpText('after', examples('signalbox recover claim-42 --state draft', `signalbox recover claim-42 --state submitted --context '{"amount":120}'`))
    .action((instanceId: string, options, command: Command) => recoverCommand(contextOf(command), instanceId, options));

  program
    .command('suspend')
    .description('suspend a waiting instance: it takes no triggers (notActive) and its timers wait until it is resumed')
    .argument('<instanceId>', 'the instance')
    .addHelpText('after', examples('signalbox suspend claim-42'))
    .action((instanceId: string, _options, command: Command) => suspendCommand(contextOf(command), instanceId));

  program
    .command('resume')
    .description('resume a suspended instance (waiting again; timers that fell due meanwhile fire at once)')
    .argument('<instanceId>', 'the instance')
    .addHelpText('after', examples('signalbox resume claim-42'))
    .action((instanceId: string, _options, command: Command) => resumeCommand(contextOf(command), instanceId));

  program
    .command('delete')
    .description('delete an instance with its history (the server refuses a waiting or initializing one without --force)')
    .argument('<instanceId>', 'the instance')
    .option('--force', 'delete it even while it is waiting or initializing')
    .addHelpText('after', examples('signalbox delete claim-42', 'signalbox delete claim-43 --force'))
    .action((instanceId: string, options, command: Command) => deleteCommand(contextOf(command), instanceId, options));

  program
    .command('delete-workflow')
    .description('delete a workflow and every version of it (the server refuses while instances of it exist)')
    .argument('<workflowId>', 'the workflow')
    .addHelpText('after', examples('signalbox bulk delete --workflow old-claims --force --dry-run', 'signalbox bulk delete --workflow old-claims --force --expect-count 12 --wait', 'signalbox delete-workflow old-claims'))
    .action((workflowId: string, _options, command: Command) => deleteWorkflowCommand(contextOf(command), workflowId));

  const addOperationOptions = (command: Command) =>
    command
      .option('--wait', 'follow the operation to its end: a progress bar on a terminal, then the summary and outcomes')
      .option('--results <n>', 'per-instance outcomes to show after --wait', wholeNumber('--results'), 10)
      .option('--no-progress', 'no progress bar, even on a terminal');

  addOperationOptions(
    program
      .command('migrate')
      .description("move a workflow's instances from one version to another (relabels them: no actions run); --dry-run reports what would move")
      .argument('<workflowId>', 'the workflow')
      .requiredOption('--from <n>', 'the version the instances are on', wholeNumber('--from'))
      .option('--to <n>', 'the version to move them to (default: the latest)', wholeNumber('--to'))
      .option('--map <old=new>', 'a state of --from and the state of --to it becomes (repeatable); a state not mapped keeps its id', collect)
      .option('--state <stateId>', 'only instances in this state')
      .addOption(new Option('--status <status>', 'only instances with this status').choices(INSTANCE_STATUSES))
      .option('--dry-run', 'change nothing: report what would move where, and what cannot move and why'),
  )
    .addHelpText('after', examples('signalbox migrate expense-claim --from 1 --to 2 --map review=checking --dry-run', 'signalbox migrate expense-claim --from 1 --map review=checking --wait', 'signalbox migrate expense-claim --from 1 --to 2 --state draft --json'))
    .action((workflowId: string, options, command: Command) => migrateCommand(contextOf(command), workflowId, options));

  addOperationOptions(
    program
      .command('bulk')
      .description('act on every instance of a workflow that the filter matches, as one operation (each instance under its lease)')
      .addArgument(new Argument('<action>', 'what to do to each instance').choices(BULK_ACTIONS))
      .requiredOption('--workflow <workflowId>', 'the workflow whose instances to act on')
      .option('--state <stateId>', 'only instances in this state')
      .addOption(new Option('--status <status>', 'only instances with this status').choices(INSTANCE_STATUSES))
      .option('--subject <subject>', 'only instances interested in this subject')
      .option('--updated-before <time>', 'only instances last changed before this moment (ISO 8601, e.g. 2026-11-01T00:00:00Z)')
      .option('--to-state <stateId>', 'recover: the state whose entry runs again (required for recover)')
      .option('--force', 'delete: waiting and initializing instances too')
      .option('--expect-count <n>', 'delete (required): how many instances the filter matches, as --dry-run tells; refused if it matches another number', wholeNumber('--expect-count'))
      .option('--dry-run', 'change nothing: say how many instances the filter matches now'),
  )
    .addHelpText(
      'after',
      examples(
        'signalbox bulk cancel --workflow expense-claim --state awaiting-receipts --wait',
        'signalbox bulk recover --workflow expense-claim --status faulted --to-state draft',
        'signalbox bulk delete --workflow expense-claim --updated-before 2026-01-01T00:00:00Z --force --dry-run',
        'signalbox bulk delete --workflow expense-claim --updated-before 2026-01-01T00:00:00Z --force --expect-count 42 --wait',
      ),
    )
    .action((action: BulkAction, options, command: Command) => bulkCommand(contextOf(command), action, options));

  return program;
}
