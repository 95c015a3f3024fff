/** @module WorkflowStore in memory: every version kept, ETag per version. */
import type { WorkflowDefinition, WorkflowVersion } from '../../engine/definition';
import { ConflictError, NotFoundError, PreconditionFailedError } from '../../engine/model';
import type { OperationOptions, Page, PageOptions, WorkflowStore, WorkflowSummary, WorkflowWriteOptions } from '../../engine/ports';
import { pageOf } from './paging';
import { pagedList, type PagedAsyncIterable } from '../../engine/ports';

export class InMemoryWorkflowStore implements WorkflowStore {
  private readonly workflows = new Map<string, WorkflowVersion[]>();
  private counter = 0;
  /** Number of create and update calls that wrote. */
  writes = 0;

  private version(definition: WorkflowDefinition, version: number, createdAt: Date): WorkflowVersion {
    return { definition: structuredClone(definition), version, createdAt: createdAt.toISOString(), etag: `"w${++this.counter}"` };
  }

  async create(definition: WorkflowDefinition, options: WorkflowWriteOptions): Promise<WorkflowVersion> {
    if (this.workflows.has(definition.id)) throw new ConflictError(`Workflow "${definition.id}" exists`);
    const created = this.version(definition, 1, options.createdAt);
    this.workflows.set(definition.id, [created]);
    this.writes++;
    return created;
  }

  async update(definition: WorkflowDefinition, options: WorkflowWriteOptions & { ifMatch: string }): Promise<WorkflowVersion> {
    const versions = this.workflows.get(definition.id);
    if (!versions) throw new NotFoundError(`Workflow "${definition.id}" does not exist`);
    const latest = versions[versions.length - 1]!;
    if (options.ifMatch !== '*' && options.ifMatch !== latest.etag) {
      throw new PreconditionFailedError(`Workflow "${definition.id}" has changed (its ETag is no longer ${options.ifMatch})`);
    }
    const next = this.version(definition, latest.version + 1, options.createdAt);
    versions.push(next);
    this.writes++;
    return next;
  }

  async get(workflowId: string, options: OperationOptions & { version?: number } = {}): Promise<WorkflowVersion | undefined> {
    const versions = this.workflows.get(workflowId);
    if (!versions) return undefined;
    return options.version === undefined ? versions[versions.length - 1] : versions.find((item) => item.version === options.version);
  }

  async delete(workflowId: string, _options?: OperationOptions): Promise<void> {
    this.workflows.delete(workflowId);
  }

  list(options?: PageOptions): PagedAsyncIterable<WorkflowSummary> {
    return pagedList((page) => this.listPage(page), options);
  }

  private async listPage(options?: PageOptions): Promise<Page<WorkflowSummary>> {
    const summaries = [...this.workflows.keys()].sort().map((id) => {
      const latest = this.workflows.get(id)!.at(-1)!;
      return { id, displayName: latest.definition.displayName, version: latest.version };
    });
    return pageOf(summaries, options);
  }
}
