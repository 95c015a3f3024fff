/**
 * @module The API's shapes as the console reads them (shared/design/api.md, with the wave 2 additions
 * marked optional: a server without them still works).
 */
export const instanceStatuses = ['initializing', 'waiting', 'suspended', 'faulted', 'complete', 'cancelled'] as const;
export type InstanceStatus = (typeof instanceStatuses)[number];

export interface Problem {
  type?: string;
  title: string;
  status: number;
  detail?: string;
  errors?: Array<{ path: string; message: string }>;
}

export interface Page<T> {
  items: T[];
  continuationToken?: string;
}

export interface WorkflowSummary {
  id: string;
  displayName?: string;
  version: number;
}

export interface Transition {
  id: string;
  targetStateId: string;
  conditions?: unknown[];
  actions?: unknown[];
  after?: string;
  at?: string;
}

export interface StateDefinition {
  displayName?: string;
  interests?: string[];
  transitions?: Transition[];
}

export interface Workflow {
  id: string;
  displayName?: string;
  description?: string;
  initialStateId: string;
  states: Record<string, StateDefinition>;
  version: number;
  etag?: string;
}

export interface Fault {
  message: string;
  triggerId?: string;
  at: string;
}

export interface Instance {
  id: string;
  workflowId: string;
  workflowVersion: number;
  stateId: string;
  status: InstanceStatus;
  context: Record<string, unknown>;
  interests: string[];
  fault?: Fault;
  timers?: Array<{ transitionId: string; dueAt: string }>;
  parent?: { instanceId: string };
  createdAt: string;
  updatedAt: string;
  etag?: string;
}

export interface HistoryEntry {
  at: string;
  /** created, transitioned, faulted, recovered, cancelled (more may come: shown as they are). */
  event?: string;
  triggerId: string | null;
  transitionId: string | null;
  fromStateId: string | null;
  toStateId: string | null;
  /** The instance's status after this entry. */
  status?: InstanceStatus;
}

export interface TraceStep {
  path: string;
  type: string;
  result: boolean | 'error' | 'skipped' | 'true' | 'false';
  detail?: unknown;
}

export interface InstanceOutcome {
  instanceId: string;
  outcome: string;
  transitionId?: string;
  fromStateId?: string;
  toStateId?: string;
  error?: string;
  trace?: TraceStep[];
}

export type OperationStatus = 'notStarted' | 'running' | 'succeeded' | 'failed';

export interface Operation {
  id: string;
  triggerId?: string;
  status: OperationStatus;
  createdAt: string;
  updatedAt: string;
  candidates?: number;
  progress?: { total?: number; processed: number };
  summary?: Record<string, number>;
  instances?: InstanceOutcome[];
  error?: string;
}

export interface Accepted {
  operationId: string;
  status: OperationStatus;
  statusUrl: string;
}

export interface AvailableTrigger {
  transitionId: string;
  /** The names it answers; `["*"]` for any name (but `exceptTriggerNames`); empty for a timer. */
  triggerNames: string[];
  exceptTriggerNames?: string[];
  /** The parameter tests its conditions make, e.g. `{ parameter: "amount", test: "exists" }`. */
  parameters?: Array<{ parameter?: string; test?: string; value?: unknown }>;
  targetStateId: string;
  timer?: { after?: string; at?: string; dueAt?: string };
}

export interface AvailableTriggers {
  status: InstanceStatus;
  items: AvailableTrigger[];
}

export interface DryRunInstance {
  instanceId: string;
  outcome: string;
  transitionId?: string;
  toStateId?: string;
  trace?: TraceStep[];
  contextAfter?: Record<string, unknown>;
  events?: unknown[];
  raisedTriggers?: unknown[];
  actions?: unknown[];
}

export interface DryRunResult {
  instances: DryRunInstance[];
}

export interface TriggerInput {
  id?: string;
  name: string;
  contentType?: string;
  parameters?: Record<string, unknown>;
}

export interface InstanceFilter {
  workflowId?: string;
  stateId?: string;
  status?: InstanceStatus;
  subject?: string;
}
