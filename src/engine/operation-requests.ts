/**
 * @module The validation of migration and bulk requests against the workflows they name (the schemas check
 * their shape; this checks that the versions and states they name exist), so that a misspelt name is a
 * ValidationError naming the field rather than an operation that "succeeds" over no instances.
 */
import type { WorkflowDefinition } from './definition/definition';
import type { Engine } from './engine';
import { InstanceStatus } from './model/enums';
import { NotFoundError, ValidationError } from './model/errors';
import { BulkAction, bulkRequestSchema, migrationRequestSchema, type BulkRequest, type MigrationRequest } from './decide/operation-work';
import type { OperationOptions } from './ports/ports';
import { parseWith } from './model/validation';

/** Reads a workflow version (the latest without one); NotFoundError when there is none. */
export type WorkflowLookup = Engine['getWorkflow'];

/**
 * Validates a migration request for `workflowId` (ValidationError naming the field; NotFoundError for
 * an unknown workflow): both versions exist, they differ, and every mapped state exists on its side.
 */
export async function parseMigrationRequest(getWorkflow: WorkflowLookup, workflowId: string, input: unknown, options: OperationOptions = {}): Promise<{ request: MigrationRequest; dryRun: boolean }> {
  const parsed = parseWith(migrationRequestSchema, input, 'The migration request is invalid');
  await getWorkflow(workflowId, undefined, options);
  const problems: { path: string; message: string }[] = [];
  const version = async (path: string, number: number): Promise<WorkflowDefinition | undefined> => {
    try {
      return (await getWorkflow(workflowId, number, options)).definition;
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
      problems.push({ path, message: `workflow "${workflowId}" has no version ${number}` });
      return undefined;
    }
  };
  const from = await version('fromVersion', parsed.fromVersion);
  const to = await version('toVersion', parsed.toVersion);
  if (parsed.fromVersion === parsed.toVersion) problems.push({ path: 'toVersion', message: 'must differ from fromVersion' });
  for (const [source, target] of Object.entries(parsed.stateMap)) {
    if (from && !Object.hasOwn(from.states, source)) problems.push({ path: `stateMap.${source}`, message: `version ${parsed.fromVersion} has no state "${source}"` });
    if (to && !Object.hasOwn(to.states, target)) problems.push({ path: `stateMap.${source}`, message: `version ${parsed.toVersion} has no state "${target}"` });
  }
  if (problems.length > 0) throw new ValidationError('The migration request is invalid', problems);
  const request: MigrationRequest = {
    workflowId,
    fromVersion: parsed.fromVersion,
    toVersion: parsed.toVersion,
    stateMap: parsed.stateMap,
    ...(parsed.filter && (parsed.filter.stateId !== undefined || parsed.filter.status !== undefined) ? { filter: parsed.filter } : {}),
  };
  return { request, dryRun: parsed.dryRun };
}

/**
 * Validates a bulk request (ValidationError naming the field): the filter's workflow exists, and the
 * filter's state and recovery's target state exist in at least one of its versions. A misspelt name
 * would otherwise "succeed" over no instances at all.
 */
export async function parseBulkRequest(getWorkflow: WorkflowLookup, input: unknown, options: OperationOptions = {}): Promise<BulkRequest> {
  const parsed = parseWith(bulkRequestSchema, input, 'The bulk request is invalid');
  const { workflowId } = parsed.filter;
  let latest: number;
  try {
    latest = (await getWorkflow(workflowId, undefined, options)).version;
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
    throw new ValidationError('The bulk request is invalid', [{ path: 'filter.workflowId', message: `no workflow "${workflowId}" exists` }]);
  }
  const named = [
    ...(parsed.filter.stateId !== undefined ? [{ path: 'filter.stateId', stateId: parsed.filter.stateId }] : []),
    ...(parsed.stateId !== undefined ? [{ path: 'stateId', stateId: parsed.stateId }] : []),
  ];
  if (named.length > 0) {
    // Every version counts: instances pinned to an older version may still be in a state the latest dropped.
    const states = new Set<string>();
    for (let version = 1; version <= latest; version += 1) {
      for (const stateId of Object.keys((await getWorkflow(workflowId, version, options)).definition.states)) states.add(stateId);
    }
    const problems = named.filter(({ stateId }) => !states.has(stateId)).map(({ path, stateId }) => ({ path, message: `no version of workflow "${workflowId}" has a state "${stateId}"` }));
    if (problems.length > 0) throw new ValidationError('The bulk request is invalid', problems);
  }
  return {
    action: parsed.action,
    // A retry is of faulted instances only: its filter says so, so a page lists only those.
    filter: parsed.action === BulkAction.retry ? { ...parsed.filter, status: InstanceStatus.faulted } : parsed.filter,
    ...(parsed.stateId !== undefined ? { stateId: parsed.stateId } : {}),
    ...(parsed.force ? { force: true } : {}),
  };
}
