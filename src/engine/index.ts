/** @module The engine's public API: the model, the processor, the facade, the registry and the ports. */
export * from './enums';
export * from './errors';
export * from './json';
export * from './trigger';
export * from './definition';
export * from './instance';
export * from './operation';
export type * from './ports';
export { formatPath, issuesFromZod, parseWith } from './validation';
export { pagedList, type PagedAsyncIterable, type PageSettings } from './paging';

export { validateDefinition } from './definition-validation';
export { workflowDefinitionJsonSchema } from './definition-json-schema';
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
} from './expressions';
export { EXPRESSION_DEADLINE_IN_MS, EXPRESSION_MEMORY_LIMIT_IN_MB, ExpressionLimitError, MAX_EXPRESSION_DEPTH } from './expression-limits';
export { builtInRegistry, createRegistry, defineAction, defineCondition, type Registry, type RegistryOptions } from './registry';
export type { ActionContext, ActionType, ChildStep, ConditionContext, ConditionType, StepContext, TriggerToRaise } from './step-types';
export { expressionSchema, stepBaseShape, templateSchema } from './step-schemas';
export * from './conditions';
export * from './actions';
export { consoleLogger, silentLogger, type EngineLogger, type Effects } from './effects';
export { computeInterests } from './interests';
export { MAX_CAUSAL_BUDGET, MAX_SELF_CAUSED_CHANGES_PER_MINUTE, SELF_CAUSED_WINDOW_IN_MS, depthFault, isOutsideInput, isSelfCaused } from './causal-budget';
export { causalDepthOf, causeKey, followUpDepth, triggerDepth, type Cause, type Change, type Decision, type LogLine } from './decision';
export { decideTrigger } from './decide-trigger';
export { createInstanceInputSchema, decideCreate, type CreateInstanceInput, type NewInstance } from './decide-create';
export { decideRecover, type RecoveryRepair } from './decide-recover';
export * from './merge-patch';
export * from './offers';
export { decideCancel } from './decide-cancel';
export { decideMigrate, migrationVerdict, type MigrationVerdict } from './decide-migrate';
export { decideResume, decideSuspend } from './decide-suspend';
export { decideDelete } from './decide-delete';
export * from './operation-work';
export { MIGRATION_SAMPLE_SIZE, MigrationsAndBulkActions, type MigrationBlockedRow, type MigrationReport, type MigrationReportRow } from './migrations-and-bulk-actions';
export { faultDecision, oversizeFaultDecision } from './decide-fault';
export { enterState, entryBlockedAt, outboxRows, type EnteredState } from './enter-state';
export { MAX_OUTBOX_ROWS_PER_CHANGE, OutboxKind, type OutboxRow, type OutboxRowOf, type StoredOutboxRow, type TimerOutboxRow, type TriggerOutboxRow } from './outbox';
export { OutboxRelay, type OutboxHandlers } from './outbox-relay';
export { type EventOutboxRow, type StartInstanceOutboxRow, type StartInstancePayload, RECORD_BACKED_KINDS, isStoredOutboxRow } from './outbox';
export { LifecycleEventType, lifecycleEventTypeSchema } from './events/lifecycle-event-type';
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
} from './events/lifecycle-events';
export { MAX_SUBSCRIPTIONS_PER_WORKFLOW, subscriptionSchema, type Subscription } from './events/subscriptions';
export { defaultEventDeliveryPolicy, retryDelayInMs, type EventDeliveryPolicy } from './events/delivery-policy';
export { toCloudEvent, structuredMessage, eventSource } from './events/cloud-event';
export type { AttemptResult, EventDeliveryTarget } from './events/event-delivery';
export { ActionCallJournal } from './action-call-journal';
export { RAISED_TRIGGER_ID_PREFIX, TIMER_TRIGGER_ID_PREFIX, raisedTriggerId, timerTriggerId, toTriggerId } from './trigger-ids';
export { armTimers, dueTimersOf, newlyArmed, timerOutboxRows, timerTrigger, TIMER_TRIGGER_NAME, type DueTimer } from './timers';
export { calendarSchema, parseIsoDuration, timerSchema, type CalendarDefinition, type TimerDefinition } from './timer-definition';
export { addWorkingTime } from './business-calendar';
export { InProcessTimers } from './in-process-timers';
export { Engine, MAX_DRY_RUN_CANDIDATES, type EnginePorts } from './engine';
export { InstanceRuntime, type Decide, type DecideContext, type Decided, type Guard, type InstanceRuntimePorts } from './instance-runtime';
export { WorkflowService } from './workflow-service';
export { WorkflowVersionCache } from './workflow-version-cache';
export { resolveEngineOptions, type Clock, type EngineOptions, type ResolvedEngineOptions } from './engine-options';
export { callExternalService, externalServiceRequestBody, type ExternalServiceStepConfig } from './external-service-call';
export { ExternalServiceError, OutboundRefusedError, refusingExternalServiceClient, type ExternalRequest, type ExternalResponse, type ExternalServiceClient } from './outbound-port';
export { dryRunTrigger, recordingEffects, type DryRunResult, type SimulatedAction } from './dry-run';
export { MAX_TRACE_DETAIL_LENGTH, type TraceEntry, type TraceResult } from './decision-trace';
export * from './analysis';
export * from './search';
