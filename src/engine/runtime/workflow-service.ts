/**
 * @module Workflows: create, add a version, get, list, with the version cache the runtime shares.
 * Definitions are validated here (the registry decides which step types exist), and so is "create or
 * add a version" with If-Match semantics (`put`), which the PUT route and the CLI's push rely on.
 */
import type { WorkflowDefinition, WorkflowVersion } from '../definition/definition';
import { validateDefinition } from '../analysis/definition-validation';
import { ConflictError, NotFoundError, PreconditionFailedError, ValidationError } from '../model/errors';
import { jsonEqual } from '../model/json-equal';
import type { JsonValue } from '../model/json';
import type { PagedAsyncIterable } from '../ports/paging';
import type { OperationOptions, PageOptions, WorkflowStore, WorkflowSummary } from '../ports/ports';
import type { Clock } from './engine-options';
import type { Registry } from '../steps/registry';
import { WorkflowVersionCache } from './workflow-version-cache';

export class WorkflowService {
  readonly versions: WorkflowVersionCache;

  constructor(
    private readonly store: WorkflowStore,
    private readonly registry: Registry,
    cacheSize: number,
    /** The engine's clock: a version's `createdAt` (so a ManualClock makes it deterministic). */
    private readonly clock: Clock,
  ) {
    this.versions = new WorkflowVersionCache(store, cacheSize);
  }

  /** Validates a definition: DefinitionInvalidError lists every problem. */
  validate(input: unknown): WorkflowDefinition {
    return validateDefinition(input, this.registry);
  }

  /** Stores version 1; ConflictError if the id exists. */
  async create(definition: WorkflowDefinition, options?: OperationOptions): Promise<WorkflowVersion> {
    return this.versions.remember(await this.store.create(definition, { ...options, createdAt: this.clock.now() }));
  }

  /** Adds a version: `ifMatch` is the latest ETag or `*` (PreconditionFailedError if stale, NotFoundError if absent). */
  async addVersion(definition: WorkflowDefinition, options: OperationOptions & { ifMatch: string }): Promise<WorkflowVersion> {
    return this.versions.remember(await this.store.update(definition, { ...options, createdAt: this.clock.now() }));
  }

  /**
   * Creates or versions `workflowId` from an untyped definition. The input's `id`, if any, must be
   * `workflowId` (ValidationError naming `id`). Without `ifMatch` the workflow is created (version 1) if
   * new, else ConflictError; with `ifMatch` (the latest ETag, or `*`) a version is added, and `ifMatch` on
   * a workflow that does not exist fails the precondition rather than creating it. A definition equal to
   * the latest version's is not a new version: the latest is answered as it is (so pushing the same file
   * twice leaves one version), unless `force` asks for a version anyway.
   */
  async put(workflowId: string, input: unknown, options: OperationOptions & { ifMatch?: string; force?: boolean } = {}): Promise<{ workflow: WorkflowVersion; created: boolean }> {
    const { ifMatch, force, ...operation } = options;
    let named = input;
    if (named !== null && typeof named === 'object' && !Array.isArray(named)) {
      const id = (named as { id?: unknown }).id;
      if (id !== undefined && id !== workflowId) {
        throw new ValidationError('The workflow definition is invalid', [{ path: 'id', message: `the body's id "${String(id)}" differs from the workflow id "${workflowId}" in the request` }]);
      }
      named = { ...named, id: workflowId };
    }
    const definition = this.validate(named);
    if (!ifMatch) {
      if (await this.find(workflowId, operation)) throw new ConflictError(`Workflow "${workflowId}" exists: send If-Match with its ETag (or *) to add a version`);
      return { workflow: await this.create(definition, operation), created: true };
    }
    if (!force) {
      const latest = await this.find(workflowId, operation);
      // A stale ETag is refused by addVersion below (412), even for an unchanged body.
      if (latest && (ifMatch === '*' || ifMatch === latest.etag) && jsonEqual(latest.definition as unknown as JsonValue, definition as unknown as JsonValue)) {
        return { workflow: latest, created: false };
      }
    }
    try {
      return { workflow: await this.addVersion(definition, { ...operation, ifMatch }), created: false };
    } catch (error) {
      if (error instanceof NotFoundError) throw new PreconditionFailedError(`Workflow "${workflowId}" does not exist, so If-Match cannot match`, { cause: error });
      throw error;
    }
  }

  /** The latest version, or the given one. NotFoundError if absent. */
  async get(workflowId: string, version?: number, options?: OperationOptions): Promise<WorkflowVersion> {
    if (version !== undefined) return this.versions.get(workflowId, version, options);
    const latest = await this.store.get(workflowId, options);
    if (!latest) throw new NotFoundError(`Workflow "${workflowId}" does not exist`);
    return this.versions.remember(latest);
  }

  /** The latest version, or undefined. */
  async find(workflowId: string, options?: OperationOptions): Promise<WorkflowVersion | undefined> {
    const latest = await this.store.get(workflowId, options);
    return latest ? this.versions.remember(latest) : undefined;
  }

  /** Removes every version and forgets the cached ones. */
  async delete(workflowId: string, options?: OperationOptions): Promise<void> {
    await this.store.delete(workflowId, options);
    this.versions.forget(workflowId);
  }

  /** The latest version of every workflow, a page at a time (`byPage`) or item by item. */
  list(options?: PageOptions): PagedAsyncIterable<WorkflowSummary> {
    return this.store.list(options);
  }
}
