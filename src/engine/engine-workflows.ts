/** @module The facade's workflow commands and reads (workflow-service.ts holds the work). */
import type { WorkflowDefinition, WorkflowDefinitionInput, WorkflowVersion } from './definition/definition';
import { ConflictError } from './model/errors';
import { onePage } from './ports/paging';
import type { OperationOptions, Page, PageOptions, WorkflowSummary } from './ports/ports';
import { EngineCore } from './engine-core';

export abstract class EngineWorkflows extends EngineCore {
  /**
   * Parses and validates a definition (the registry decides which step types exist): the edge's step for
   * untyped input (a request body, a file). DefinitionInvalidError lists every problem.
   */
  validateWorkflow(input: unknown): WorkflowDefinition {
    return this.workflows.validate(input);
  }

  /**
   * Stores version 1; ConflictError if the id exists. Checked again against the registry (a typed value
   * may still name an unknown step type or carry a bad expression): DefinitionInvalidError lists every problem.
   */
  async createWorkflow(definition: WorkflowDefinitionInput, options?: OperationOptions): Promise<WorkflowVersion> {
    return this.workflows.create(this.workflows.validate(definition), options);
  }

  /** Adds a version (checked as `createWorkflow` checks); `ifMatch` is the latest version's ETag or `*`. */
  async addWorkflowVersion(definition: WorkflowDefinitionInput, options: OperationOptions & { ifMatch: string }): Promise<WorkflowVersion> {
    return this.workflows.addVersion(this.workflows.validate(definition), options);
  }

  /**
   * Creates or versions a workflow from an untyped definition, with If-Match semantics (PUT): see
   * WorkflowService.put. `created` says which it did.
   */
  putWorkflow(workflowId: string, input: unknown, options?: OperationOptions & { ifMatch?: string; force?: boolean }): Promise<{ workflow: WorkflowVersion; created: boolean }> {
    return this.workflows.put(workflowId, input, options);
  }

  /** The latest version, or the given one. NotFoundError if absent. */
  getWorkflow(workflowId: string, version?: number, options?: OperationOptions): Promise<WorkflowVersion> {
    return this.workflows.get(workflowId, version, options);
  }

  listWorkflows(pageOptions?: PageOptions): Promise<Page<WorkflowSummary>> {
    return onePage(this.workflows.list(pageOptions));
  }

  /** Removes every version of a workflow: ConflictError while any instance of it exists, NotFoundError if absent. */
  async deleteWorkflow(workflowId: string, options: OperationOptions = {}): Promise<void> {
    await this.workflows.get(workflowId, undefined, options);
    const instances = await onePage(this.ports.instances.query({ workflowId }, { ...options, maxPageSize: 1 }));
    if (instances.items.length > 0) throw new ConflictError(`Workflow "${workflowId}" has instances: delete them first`);
    await this.workflows.delete(workflowId, options);
  }
}
