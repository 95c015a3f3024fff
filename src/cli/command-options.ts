/** @module What the command modules share when they define themselves: the context, examples, and common options. */
import type { Command } from 'commander';
import { instanceStatuses } from '../client';
import type { CommandContext } from './context';
import { wholeNumber } from './inputs';

/** The context of the command being run (global options may follow the command: `signalbox instances --json`). */
export type ContextOf = (command: Command) => CommandContext;

export function examples(...lines: string[]): string {
  return `\nExamples:\n${lines.map((line) => `  $ ${line}`).join('\n')}\n`;
}

/** The statuses `--status` accepts: the API's own (src/client checks the list against the generated types). */
export const INSTANCE_STATUSES: readonly string[] = instanceStatuses;

/** `--wait`, `--results` and `--no-progress` of a command that starts an operation (migrate, bulk). */
export function addOperationOptions(command: Command): Command {
  return command
    .option('--wait', 'follow the operation to its end: a progress bar on a terminal, then the summary and outcomes')
    .option('--results <n>', 'per-instance outcomes to show after --wait', wholeNumber('--results'), 10)
    .option('--no-progress', 'no progress bar, even on a terminal');
}

/** How a list command pages: from a token, a page size, and whether to follow every page. */
export interface ListPaging {
  readonly all?: boolean;
  readonly continuationToken?: string;
  readonly pageSize?: number;
}

/**
 * Reads one page of a list, or every page with `all`: the items, and the token of the page not read
 * (undefined once the list is done), which a command prints so the user can go on.
 */
export async function readListPages<T>(
  readPage: (page: { continuationToken?: string; maxPageSize?: number }) => Promise<{ items: readonly T[]; continuationToken?: string }>,
  paging: ListPaging,
): Promise<{ items: T[]; continuationToken: string | undefined }> {
  const items: T[] = [];
  let continuationToken = paging.continuationToken;
  do {
    const page = await readPage({ ...(continuationToken ? { continuationToken } : {}), ...(paging.pageSize ? { maxPageSize: paging.pageSize } : {}) });
    items.push(...page.items);
    continuationToken = page.continuationToken;
  } while (paging.all && continuationToken);
  return { items, continuationToken };
}
