/** @module Definition analysis (pure, no I/O): the graph, warnings, diagrams and available triggers. */
export { buildDefinitionGraph, transitionTimer, type DefinitionGraph, type ParameterTest, type StateNode, type TimerSpec, type TransitionEdge } from './definition-graph';
export { analyzeDefinition, WarningCode, type DefinitionWarning } from './analyze-definition';
export { outboundHostWarnings, type OutboundClients } from './outbound-hosts';
export { mermaidLabel, mermaidStateDiagram, transitionLabel, type DiagramOptions } from './mermaid-diagram';
export { availableTriggers, type AvailableTrigger, type AvailableTriggers } from './available-triggers';
export { everyName, noNames, type NameSet } from './name-set';
export { checkDefinition, type DefinitionCheck } from './check-definition';
export * from './definition-validation';
export * from './definition-json-schema';
export * from './context-keys';
