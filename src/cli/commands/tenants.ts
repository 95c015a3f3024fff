/** @module `signalbox tenants list|show|create|delete`: the tenants admin API (Signalbox.TenantAdmin). */
import type { Command } from 'commander';
import type { Tenant } from '../../client';
import { examples, type ContextOf } from '../command-options';
import type { CommandContext } from '../context';

function describe(tenant: Tenant): string {
  const deletion = tenant.deletion ? `, being deleted (${tenant.deletion.status})` : '';
  return `${tenant.id}: created ${tenant.createdAt}${tenant.storage ? ', own storage account' : ''}${deletion}`;
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

export async function createTenantCommand(context: CommandContext, tenantId: string): Promise<void> {
  const { tenant, created } = await context.api.createTenant(tenantId);
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
    .addHelpText('after', examples('signalbox tenants create contoso', 'signalbox --tenant contoso push examples/expense-claim.json', 'signalbox tenants list', 'signalbox tenants delete contoso'));
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
    .action((tenantId: string, _options, command: Command) => createTenantCommand(contextOf(command), tenantId));
  tenants
    .command('delete')
    .description('delete a tenant and everything of it (every table, row, container, blob and lease)')
    .argument('<tenantId>', 'the tenant')
    .action((tenantId: string, _options, command: Command) => deleteTenantCommand(contextOf(command), tenantId));
}
