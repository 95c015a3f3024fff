/** A workflow with a declared index of every kind, for the search tests. */
import type { WorkflowDefinitionInput } from '../../../src/engine';

export const claims: WorkflowDefinitionInput = {
  id: 'claims',
  displayName: 'Claims',
  initialStateId: 'open',
  indexes: [
    { name: 'amount', type: 'number', expression: 'context.amount' },
    { name: 'region', type: 'string', expression: '$lowercase(context.region)' },
    { name: 'tags', type: 'keyword', expression: 'context.tags' },
    { name: 'iban', type: 'string', expression: 'context.iban', sensitive: true },
  ],
  states: {
    open: {
      transitions: [
        { id: 'raise', targetStateId: 'open', conditions: [{ type: 'triggerName', name: 'Raise' }], actions: [{ type: 'setContext', expressions: { amount: 'trigger.parameters.amount' } }] },
        { id: 'close', targetStateId: 'closed', conditions: [{ type: 'triggerName', name: 'Close' }] },
      ],
    },
    closed: {},
  },
};
