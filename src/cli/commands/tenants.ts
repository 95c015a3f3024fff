/** @module `signalbox tenants list|show|create|delete`: the tenants admin API (Signalbox.TenantAdmin). */
import { InvalidArgumentError, Option, type Command } from 'commander';
import type { Tenant, TenantInput } from '../../client';
import { examples, type ContextOf } from '../command-options';
import type { CommandContext } from '../context';

function describe(tenant: Tenant): string {
  const deletion = tenant.deletion ? `, being deleted (${tenant.deletion.status})` : '';
  const storage = !tenant.storage
    ? ''
    : 'connectionSetting' in tenant.storage
      ? `, own storage account (${tenant.storage.connectionSetting})`
      : `, own storage account (${tenant.storage.tableServiceUri})`;
  return `${tenant.id}: created ${tenant.createdAt}${storage}${deletion}`;
}

interface CreateTenantOptions {
  readonly connectionSetting?: string;
  readonly tableServiceUri?: string;
  readonly blobServiceUri?: string;
  readonly quota: Readonly<Record<string, number>>;
}

/** One `--quota name=value` (repeatable) added to those before it; the server validates names and values (and names the field when refusing). */
function collectQuota(pair: string, pairs: Readonly<Record<string, number>>): Record<string, number> {
  const [name, value, ...rest] = pair.split('=');
  if (!name || value === undefined || value.trim() === '' || rest.length > 0 || !Number.isFinite(Number(value))) throw new InvalidArgumentError('--quota takes name=number, as triggersPerSecond=20.');
  return { ...pairs, [name]: Number(value) };
}

function tenantInputOf(options: CreateTenantOptions): TenantInput {
  const storage = options.connectionSetting
    ? { connectionSetting: options.connectionSetting }
    : options.tableServiceUri || options.blobServiceUri
      ? { tableServiceUri: options.tableServiceUri ?? '', blobServiceUri: options.blobServiceUri ?? '' }
      : undefined;
  return { ...(storage ? { storage } : {}), ...(Object.keys(options.quota).length > 0 ? { quotas: options.quota } : {}) };
}

export async function listTenantsCommand(context: CommandContext): Promise<void> {
  const tenants = await context.api.listTenants();
  if (context.json) return context.output.printJson(tenants);
  for (const tenant of tenants) context.output.print(describe(tenant));
}

export async function showTenantCommand(context: CommandContext, tenantId: string): Promise<void> {
  const tenant = await context.api.getTenant(tenantId);
  if (context.json) return context.output.printJson(tenant);
  context.output.print(describe(tenant));
}

export async function createTenantCommand(context: CommandContext, tenantId: string, options: CreateTenantOptions = { quota: {} }): Promise<void> {
  const { tenant, created } = await context.api.createTenant(tenantId, tenantInputOf(options));
  if (context.json) return context.output.printJson({ ...tenant, created });
  context.output.print(`${tenant.id}: ${created ? 'created, ready' : 'exists already'} (use it with --tenant ${tenant.id})`);
}

export async function deleteTenantCommand(context: CommandContext, tenantId: string): Promise<void> {
  const deletion = await context.api.deleteTenant(tenantId);
  if (context.json) return context.output.printJson(deletion);
  context.output.print(`${tenantId}: deletion ${deletion.status}; \`signalbox tenants show ${tenantId}\` answers 404 once every table and container of it is gone`);
}

/** `signalbox tenants ...`: arguments, examples and the actions. */
export function defineTenantsCommand(program: Command, contextOf: ContextOf): void {
  const tenants = program
    .command('tenants')
    .description('list, show, create and delete tenants (needs Signalbox.TenantAdmin)')
    .addHelpText(
      'after',
      examples(
        'signalbox tenants create contoso',
        'signalbox tenants create fabrikam --connection-setting SIGNALBOX_TENANT_STORAGE_FABRIKAM --quota triggersPerSecond=20',
        'signalbox --tenant contoso push examples/expense-claim.json',
        'signalbox tenants list',
        'signalbox tenants delete contoso',
      ),
    );
  tenants
    .command('list')
    .description('every tenant, default first')
    .action((_options, command: Command) => listTenantsCommand(contextOf(command)));
  tenants
    .command('show')
    .description('one tenant')
    .argument('<tenantId>', 'the tenant')
    .action((tenantId: string, _options, command: Command) => showTenantCommand(contextOf(command), tenantId));
  tenants
    .command('create')
    .description('create a tenant: its tables and lease container are ready when this answers')
    .argument('<tenantId>', 'the tenant: 3-63 lowercase letters, digits or hyphens')
    .addOption(
      new Option('--connection-setting <name>', "its own storage account: the app setting SIGNALBOX_TENANT_STORAGE_<NAME> holding the account's connection string").conflicts([
        'tableServiceUri',
        'blobServiceUri',
      ]),
    )
    .option('--table-service-uri <uri>', 'its own storage account, identity-based: the table endpoint (with --blob-service-uri)')
    .option('--blob-service-uri <uri>', 'its own storage account, identity-based: the blob endpoint (with --table-service-uri)')
    .option('--quota <name=value>', "a quota of its own, over the deployment's default (repeatable): triggersPerSecond=20", collectQuota, {} as Record<string, number>)
    .action((tenantId: string, options: CreateTenantOptions, command: Command) => createTenantCommand(contextOf(command), tenantId, options));
  tenants
    .command('delete')
    .description('delete a tenant and everything of it (every table, row, container, blob and lease)')
    .argument('<tenantId>', 'the tenant')
    .action((tenantId: string, _options, command: Command) => deleteTenantCommand(contextOf(command), tenantId));
}
