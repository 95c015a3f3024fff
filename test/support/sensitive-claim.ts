/** A workflow with a sensitive index, for the tests of a deployment that has no index key. */
export const sensitiveClaim = {
  id: 'sensitive-claim',
  displayName: 'Sensitive claim',
  initialStateId: 'open',
  indexes: [
    { name: 'amount', type: 'number', expression: 'context.amount' },
    { name: 'iban', type: 'string', expression: 'context.iban', sensitive: true },
  ],
  states: { open: { transitions: [{ id: 'close', targetStateId: 'closed', conditions: [{ type: 'triggerName', name: 'Close' }] }] }, closed: {} },
};

/** The warning a push of `sensitiveClaim` gets from a host without SIGNALBOX_INDEX_HMAC_KEY. */
export const sensitiveClaimWarning = {
  path: 'indexes[1]',
  code: 'sensitiveIndexUnkeyed',
  message: 'index "iban" is sensitive and this deployment has no index key (SIGNALBOX_INDEX_HMAC_KEY): it stays unindexed and a search on it is refused (400) until the key is set',
};
