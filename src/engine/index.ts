/** @module The engine's public API: the model, the processor, the facade, the registry and the ports. */
export * from './model/enums';
export * from './model/errors';
export * from './model/json';
export * from './model/trigger';
export * from './model/internal-trigger';
export * from './definition/definition';
export * from './model/instance';
export * from './operations/operation';
export type * from './ports/ports';
export { formatPath, issuesFromZod, parseWith } from './model/validation';
export { pagedList, type PagedAsyncIterable, type PageSettings } from './ports/paging';

export { validateDefinition } from './analysis/definition-validation';
export { workflowDefinitionJsonSchema } from './analysis/definition-json-schema';
export {
  closeExpressionWorkers,
  compileExpression,
  evaluateExpression,
  expressionCacheStats,
  EXPRESSION_CACHE_BUDGET_IN_BYTES,
  ExpressionSyntaxError,
  parseTemplate,
  renderTemplate,
  type ExpressionOptions,
  type ExpressionScope,
} from './expressions/expressions';
export { EXPRESSION_DEADLINE_IN_MS, EXPRESSION_MEMORY_LIMIT_IN_MB, ExpressionLimitError, MAX_EXPRESSION_DEPTH } from './expressions/expression-limits';
export { builtInRegistry, createRegistry, defineAction, defineCondition, type Registry, type RegistryOptions } from './steps/registry';
export type { ActionContext, ActionType, ChildStep, ConditionContext, ConditionType, StepContext, TriggerToRaise } from './steps/step-types';
export { expressionSchema, stepBaseShape, templateSchema } from './definition/step-schemas';
export * from './steps/conditions';
export * from './steps/actions';
export { consoleLogger, silentLogger, type EngineLogger, type Effects } from './steps/effects';
export { computeInterests } from './decide/interests';
export type { AutomaticStep } from './decide/enter-state';
export { MAX_CAUSAL_BUDGET, MAX_SELF_CAUSED_CHANGES_PER_MINUTE, SELF_CAUSED_WINDOW_IN_MS, depthFault, isOutsideInput, isSelfCaused } from './decide/causal-budget';
export { causalDepthOf, causeKey, followUpDepth, triggerDepth, type Cause, type Change, type Decision, type LogLine } from './decide/decision';
export { decideTrigger } from './decide/decide-trigger';
export { createInstanceInputSchema, decideCreate, type CreateInstanceInput, type NewInstance } from './decide/decide-create';
export { decideRecover, type RecoveryRepair } from './decide/decide-recover';
export * from './model/merge-patch';
export * from './decide/offers';
export { decideCancel } from './decide/decide-cancel';
export { decideMigrate, migrationVerdict, type MigrationVerdict } from './decide/decide-migrate';
export { decideResume, decideSuspend } from './decide/decide-suspend';
export { decideDelete } from './decide/decide-delete';
export * from './decide/operation-work';
export { MIGRATION_SAMPLE_SIZE, MigrationsAndBulkActions, type MigrationBlockedRow, type MigrationReport, type MigrationReportRow } from './migrations-and-bulk-actions';
export { faultDecision, oversizeFaultDecision } from './decide/decide-fault';
export { enterState, entryBlockedAt, outboxRows, type EnteredState } from './decide/enter-state';
export { MAX_OUTBOX_ROWS_PER_CHANGE, OutboxKind, type OutboxRow, type OutboxRowOf, type StoredOutboxRow, type TimerOutboxRow, type TriggerOutboxRow } from './model/outbox';
export { OutboxRelay, type OutboxHandlers } from './runtime/outbox-relay';
export { type EventOutboxRow, type StartInstanceOutboxRow, type StartInstancePayload, RECORD_BACKED_KINDS, isStoredOutboxRow } from './model/outbox';
export { LifecycleEventType, lifecycleEventTypeSchema } from './definition/lifecycle-event-type';
export {
  DeliveryStatus,
  eventId,
  lifecycleEventWrite,
  lifecycleEventsOf,
  withLifecycleEvents,
  type EventDelivery,
  type LifecycleEventData,
  type LifecycleEventRecord,
  type LifecycleEventWrite,
} from './decide/lifecycle-events';
export { MAX_SUBSCRIPTIONS_PER_WORKFLOW, subscriptionSchema, type Subscription } from './definition/subscriptions';
export { defaultEventDeliveryPolicy, retryDelayInMs, type EventDeliveryPolicy } from './events/delivery-policy';
export { toCloudEvent, structuredMessage, eventSource } from './events/cloud-event';
export type { AttemptResult, EventDeliveryTarget } from './runtime/event-delivery';
export { ActionCallJournal } from './runtime/action-call-journal';
export {
  DEBOUNCE_TRIGGER_ID_PREFIX,
  RAISED_TRIGGER_ID_PREFIX,
  RETRY_TRIGGER_ID_PREFIX,
  TIMER_TRIGGER_ID_PREFIX,
  debounceTriggerId,
  raisedTriggerId,
  retryTriggerId,
  timerTriggerId,
  toTriggerId,
} from './model/trigger-ids';
export {
  armTimers,
  debounceTimersOf,
  dueTimersOf,
  newlyArmed,
  retryTimerOf,
  timerOutboxRows,
  timerTrigger,
  DEBOUNCE_TRIGGER_NAME,
  RETRY_TRIGGER_NAME,
  TIMER_TRIGGER_NAME,
  type DueTimer,
} from './decide/timers';
export {
  MAX_IN_PLACE_RETRY_WAIT_IN_MS,
  MAX_RETRY_ATTEMPTS,
  MAX_RETRY_DELAY_IN_MS,
  RetryBackoff,
  backoffDelayInMs,
  withJitter,
  onErrorSchema,
  retryPolicyOf,
  retryPolicySchema,
  type OnErrorDefinition,
  type RetryPolicy,
  type RetryPolicyDefinition,
  type RetryPolicyInput,
} from './definition/error-handling';
export { StepErrorType, type StepError } from './model/step-error';
export { classifyError } from './steps/step-errors';
export { calendarSchema, parseIsoDuration, timerSchema, type CalendarDefinition, type TimerDefinition } from './timers/timer-definition';
export { addWorkingTime } from './timers/business-calendar';
export { InProcessTimers } from './runtime/in-process-timers';
export { Engine, MAX_DRY_RUN_CANDIDATES, type EnginePorts } from './engine';
export { InstanceRuntime, type Decide, type DecideContext, type AppliedDecision, type InstancePrecondition, type InstanceRuntimePorts } from './runtime/instance-runtime';
export { PENDING_CLAIM_GRACE_IN_MS } from './admission/key-claims';
export { WorkflowService } from './runtime/workflow-service';
export { WorkflowVersionCache } from './runtime/workflow-version-cache';
export { resolveEngineOptions, type Clock, type EngineOptions, type ResolvedEngineOptions } from './runtime/engine-options';
export { callExternalService, externalServiceRequestBody, type ExternalServiceStepConfig } from './steps/external-service-call';
export {
  ExternalServiceError,
  ExternalServiceTimeoutError,
  OutboundRefusedError,
  RetryLaterError,
  refusingExternalServiceClient,
  type StepRetry,
  type ExternalRequest,
  type ExternalResponse,
  type ExternalServiceClient,
} from './steps/outbound-port';
export { dryRunTrigger, recordingEffects, type DryRunResult, type SimulatedAction } from './decide/dry-run';
export { MAX_TRACE_DETAIL_LENGTH, type TraceEntry, type TraceResult } from './decide/decision-trace';
export * from './analysis';
export * from './search';
export * from './definition/flow-concurrency';
export {
  ConcurrencySlots,
  MAX_QUEUED_PER_KEY,
  DEFAULT_SLOT_TTL_IN_MS,
  PARKED_LISTING_TTL_IN_MS,
  type KeySlots,
  type LimitOverride,
  type SlotHolder,
  type SlotWaiter,
} from './admission/concurrency-slots';
export {
  StateCapacityRows,
  MAX_CAPACITY_QUEUED_PER_KEY,
  MAX_CAPACITY_ROW_CHARS,
  MAX_CAPACITY_REOFFERS_PER_CHANGE,
  type CapacityOffer,
  type CapacityWaiter,
  type StateKeyCapacity,
} from './admission/state-capacity';
export { MAX_CAPACITY_WAITS_PER_INSTANCE } from './admission/capacity-waits';
export * from './definition/state-capacity';
export * from './definition/human-task';
export * from './tasks';
export { HumanTasks, MAX_INBOX_PAGE_SIZE, type TaskView } from './human-tasks';
export { FlowKeys, MAX_FLOW_AUDIT_ENTRIES, type FlowAuditEntry, type FlowKeyView } from './admission/flow-keys';
export { MalformedFlowRowError, parseFlowRow, type FlowRow, type FlowRowKind, type FlowStore } from './ports/flow-store';
