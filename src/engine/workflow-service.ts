/**
 * @module Workflows: create, add a version, get, list, with the version cache the runtime shares.
 * Definitions are validated here (the registry decides which step types exist); HTTP semantics
 * (If-Match, the body's id) belong to the routes.
 */
import type { WorkflowDefinition, WorkflowVersion } from './definition';
import { validateDefinition } from './definition-validation';
import { NotFoundError } from './errors';
import type { PagedAsyncIterable } from './paging';
import type { OperationOptions, PageOptions, WorkflowStore, WorkflowSummary } from './ports';
import type { Clock } from './engine-options';
import type { Registry } from './registry';
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
