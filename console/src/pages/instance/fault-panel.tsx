/** @module A faulted instance's fault (message, trigger, when) and the form that recovers it. */
import type { Instance, Workflow } from '../../../../src/client';
import { RecoverForm } from '../../components/recover-form';
import { TimeText } from '../../components/time-text';

export function FaultPanel({ instance, workflow, onRecovered }: { instance: Instance; workflow: Workflow | undefined; onRecovered: () => void }) {
  if (!instance.fault) return null;
  return (
    <section class="fault" aria-labelledby="fault-title">
      <h2 id="fault-title">Fault</h2>
      <p class="problem-detail" data-testid="fault-message">
        {instance.fault.message}
      </p>
      <p class="muted">
        Trigger {instance.fault.triggerId ?? '–'} at <TimeText value={instance.fault.at} />
      </p>
      {instance.status === 'faulted' && <RecoverForm instance={instance} workflow={workflow} onDone={onRecovered} />}
    </section>
  );
}
