/** @module Definition analysis (pure, no I/O): the graph, warnings, diagrams and available triggers. */
export { buildDefinitionGraph, transitionTimer, type DefinitionGraph, type ParameterTest, type StateNode, type TimerSpec, type TransitionEdge } from './definition-graph';
export { analyzeDefinition, WarningCode, type DefinitionWarning } from './analyze-definition';
export { outboundHostWarnings, type OutboundClients } from './outbound-hosts';
export { indexKeyWarnings } from './index-key';
export { mermaidLabel, mermaidStateDiagram, onErrorLabel, transitionLabel, type DiagramOptions } from './mermaid-diagram';
export { availableTriggers, type AvailableTrigger, type AvailableTriggers } from './available-triggers';
export { everyName, noNames, type NameSet } from './name-set';
export { checkDefinition, type DefinitionCheck } from './check-definition';
export {
  whyWaiting,
  WaitingClass,
  waitingClassSchema,
  waitingClassValues,
  MAX_CHILDREN_LISTED,
  MAX_FIXED_LEASE_SECONDS,
  type DebouncedBurst,
  type RunningChild,
  type SlotQueuePlace,
  type WaitingAnswer,
  type WaitingFacts,
  type WaitingReason,
  type WaitingTimer,
  type WaitingTrigger,
} from './why-waiting';
export { WaitingTally, MAX_WAITING_SCAN, MAX_FAULT_CAUSES, FAULT_CAUSE_LENGTH, type WaitingGroup, type WaitingSummary } from './waiting-summary';
export * from './definition-validation';
export * from './definition-json-schema';
export * from './context-keys';
export * from './version-diff';
