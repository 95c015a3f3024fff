/** @module Cancel for an active instance, behind an inline confirmation. */
import { useApi } from '../api-context';
import type { Instance } from '../../../src/client';
import { ConfirmedAction } from './confirmed-action';

export function CancelControl({ instance, onDone }: { instance: Instance; onDone: () => void }) {
  const api = useApi();
  if (instance.status === 'complete' || instance.status === 'cancelled') return null;
  return (
    <ConfirmedAction
      label="Cancel instance…"
      question={`Cancel ${instance.id}? It takes no more triggers.`}
      confirmLabel="Confirm cancel"
      yesLabel="Yes, cancel it"
      noLabel="Keep it"
      tone="danger"
      failureContext="Cancel failed"
      run={() => api.cancelInstance(instance.id)}
      onDone={onDone}
    />
  );
}
