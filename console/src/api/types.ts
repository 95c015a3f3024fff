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
  /** Makes it a timer transition: `after` a duration (of a calendar's working time), or `at` an instant (JSONata). */
  timer?: { after?: string; at?: string; calendar?: string };
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
  /** created, transitioned, faulted, recovered, cancelled, migrated, suspended, resumed (more may come: shown as they are). */
  event?: string;
  /** Only for `migrated`. */
  fromVersion?: number;
  toVersion?: number;
  triggerId: string | null;
  /** The operation that made the change (a trigger's, a migration, a bulk action); null for direct changes. */
  operationId?: string | null;
  transitionId: string | null;
  fromStateId: string | null;
  toStateId: string | null;
  /** The instance's status after this entry. */
  status?: InstanceStatus;
  /** A recovery that repaired the context: the JSON Merge Patch it applied. */
  contextPatch?: Record<string, unknown>;
  /** Who asked for the change, where known. */
  by?: string;
}

/** A trigger offered to an instance that changed nothing. */
export interface Offer {
  operationId: string;
  triggerName: string;
  at: string;
  outcome: string;
  fromStateId?: string;
  transitionId?: string;
  toStateId?: string;
  trace?: TraceStep[];
}

export interface TraceStep {
  /** The condition's JSON path in the definition, e.g. `states.draft.transitions[1].conditions[0]`. */
  path: string;
  type: string;
  /** `skipped`: not evaluated, an earlier condition decided (short-circuit). */
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
  /** What it does: dispatch a trigger, migrate instances, or a bulk action (absent before wave 2: a trigger). */
  kind?: 'trigger' | 'migration' | 'bulk';
  triggerId?: string;
  /** For a trigger: what was sent. */
  trigger?: { name: string; subjects: string[]; parameters?: Record<string, unknown>; contentType?: string };
  migration?: { workflowId: string; fromVersion: number; toVersion: number; stateMap?: Record<string, string> };
  bulk?: { action: string; filter: Record<string, unknown>; stateId?: string; force?: boolean };
  status: OperationStatus;
  createdAt: string;
  updatedAt: string;
  candidates?: number;
  progress?: { total?: number; processed: number };
  summary?: Record<string, number>;
  instances?: InstanceOutcome[];
  /** True when `instances` does not hold every result; `summary` counts them all. */
  instancesTruncated?: boolean;
  /** True when some results carry no trace (only the first 100 keep theirs). */
  tracesTruncated?: boolean;
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
  parameters?: Array<{ name?: string; test?: string; value?: unknown; negated?: boolean; alternative?: boolean }>;
  targetStateId: string;
  timer?: { after?: string; at?: string; calendar?: string; dueAt?: string };
}

export interface AvailableTriggers {
  status: InstanceStatus;
  items: AvailableTrigger[];
}

export interface RaisedTrigger {
  name: string;
  subjects: string[];
  contentType?: string;
  parameters?: Record<string, unknown>;
}

export interface DryRunAction {
  /** Where the action is, as a fault would name it. */
  step: string;
  type: string;
  request?: { method: string; url: string; body?: unknown };
  log?: { level: string; message: string; properties?: Record<string, unknown> };
  trigger?: RaisedTrigger;
}

/** What the trigger would do to one instance: its outcome, as an operation would record it, and more. */
export interface DryRunInstance extends InstanceOutcome {
  contextAfter?: Record<string, unknown>;
  /** Lifecycle events its save would publish (none is recorded or sent). */
  events?: Array<{ type: string; subscriptionIds: string[]; data?: Record<string, unknown> }>;
  raisedTriggers?: RaisedTrigger[];
  /** The actions it would run, in order, with their rendered inputs; none is performed. */
  actions?: DryRunAction[];
}

export interface DryRunResult {
  instances: DryRunInstance[];
  truncated?: boolean;
}

export interface LifecycleEvent {
  /** The CloudEvent id, the same on every redelivery. */
  id: string;
  type: string;
  time: string;
  deliveries: Array<{ subscriptionId: string; status: 'pending' | 'delivered' | 'deadLettered' | string; attempts: number; lastError?: string }>;
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
  /** Only the children a `startInstance` action of this instance started. */
  parentId?: string;
}

export const operationKinds = ['trigger', 'migration', 'bulk'] as const;
export const operationStatuses = ['notStarted', 'running', 'succeeded', 'failed'] as const;

export interface OperationFilter {
  kind?: (typeof operationKinds)[number];
  status?: OperationStatus;
  /** Migrations and bulk actions of this workflow. */
  workflowId?: string;
}
