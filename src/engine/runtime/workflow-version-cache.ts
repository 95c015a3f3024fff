/** @module Workflow versions kept in memory (least recently used out): versions are immutable, so a cached one is never stale. */
import type { WorkflowVersion } from '../definition/definition';
import { BoundedMap } from '../model/bounded-map';
import { NotFoundError } from '../model/errors';
import type { OperationOptions, WorkflowStore } from '../ports/ports';

export class WorkflowVersionCache {
  private readonly versions: BoundedMap<string, WorkflowVersion>;

  constructor(
    private readonly store: WorkflowStore,
    capacity: number,
  ) {
    this.versions = new BoundedMap(capacity);
  }

  /** Adds (or refreshes) a version; returns the cached copy, so every caller shares one parsed definition. */
  remember(workflow: WorkflowVersion): WorkflowVersion {
    const key = `${workflow.definition.id}@${workflow.version}`;
    const cached = this.versions.get(key) ?? workflow;
    this.versions.set(key, cached);
    return cached;
  }

  /**
   * Drops every cached version of a deleted workflow, so one created again with the same id is read
   * afresh here. (Other processes may keep theirs until evicted: re-creating a deleted id is rare, and
   * a deleted workflow has no instances to apply them to.)
   */
  forget(workflowId: string): void {
    for (const key of [...this.versions.keys()]) if (key.startsWith(`${workflowId}@`)) this.versions.delete(key);
  }

  /** A pinned version, from memory when possible. NotFoundError if the store has no such version. */
  async get(workflowId: string, version: number, options?: OperationOptions): Promise<WorkflowVersion> {
    const cached = this.versions.get(`${workflowId}@${version}`);
    if (cached) return this.remember(cached);
    const loaded = await this.store.get(workflowId, { ...options, version });
    if (!loaded) throw new NotFoundError(`Version ${version} of workflow "${workflowId}" does not exist`);
    return this.remember(loaded);
  }
}
