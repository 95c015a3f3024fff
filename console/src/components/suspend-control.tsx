/**
 * @module Suspend a waiting instance or resume a suspended one (`POST /api/instances/{id}/suspend|resume`),
 * each behind an inline confirmation like Cancel. Only where the API offers both routes.
 */
import { useApi } from '../api-context';
import type { Instance } from '../../../src/client';
import { ConfirmedAction } from './confirmed-action';

export function SuspendControl({ instance, onDone }: { instance: Instance; onDone: () => void }) {
  const api = useApi();
  if (instance.status === 'waiting') {
    return (
      <ConfirmedAction
        label="Suspend instance…"
        question={`Suspend ${instance.id}? It takes no triggers and its timers wait until it is resumed.`}
        confirmLabel="Confirm suspend"
        yesLabel="Yes, suspend it"
        noLabel="Keep it running"
        tone="secondary"
        failureContext="Suspend failed"
        run={() => api.suspendInstance(instance.id)}
        onDone={onDone}
      />
    );
  }
  if (instance.status === 'suspended') {
    return (
      <ConfirmedAction
        label="Resume instance…"
        question={`Resume ${instance.id}? It takes triggers again, and timers that fell due meanwhile fire.`}
        confirmLabel="Confirm resume"
        yesLabel="Yes, resume it"
        noLabel="Keep it suspended"
        failureContext="Resume failed"
        run={() => api.resumeInstance(instance.id)}
        onDone={onDone}
      />
    );
  }
  return null;
}
