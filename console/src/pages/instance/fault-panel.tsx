/**
 * @module A faulted instance's fault (message, trigger, when), the retry of the trigger that faulted it
 * (when the fault recorded it: `fault.retryable`), followed to its end, and the form that recovers it.
 */
import { useState } from 'preact/hooks';
import { useApi } from '../../api-context';
import { asProblem } from '../../api/api-error';
import type { ClientProblem, Instance, Workflow } from '../../../../src/client';
import { OperationView } from '../../components/operation-view';
import { ProblemAlert } from '../../components/problem-alert';
import { RecoverForm } from '../../components/recover-form';
import { TimeText } from '../../components/time-text';

/** Retry: the trigger applied again, once, as an operation shown here until it ends (then the page reloads the instance). */
function RetryControl({ instance, onDone }: { instance: Instance; onDone: () => void }) {
  const api = useApi();
  const [operationId, setOperationId] = useState<string>();
  const [problem, setProblem] = useState<ClientProblem>();
  const [busy, setBusy] = useState(false);
  return (
    <div class="retry" data-testid="retry">
      <button
        type="button"
        disabled={busy || operationId !== undefined}
        aria-describedby="retry-note"
        onClick={async () => {
          setBusy(true);
          setProblem(undefined);
          try {
            setOperationId((await api.retryInstance(instance.id)).operationId);
          } catch (error) {
            setProblem(asProblem(error));
          } finally {
            setBusy(false);
          }
        }}
      >
        Retry trigger {instance.fault?.triggerId}
      </button>
      <p class="note" id="retry-note">
        Applies the trigger that faulted it again, exactly once, to the instance as the trigger found it: fix what failed first (a service down, a host not allowed).
      </p>
      {problem && <ProblemAlert problem={problem} context="Retry failed" />}
      {operationId && <OperationView key={operationId} operationId={operationId} onFinished={onDone} />}
    </div>
  );
}

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
      {instance.status === 'faulted' && instance.fault.retryable && <RetryControl instance={instance} onDone={onRecovered} />}
      {instance.status === 'faulted' && <RecoverForm instance={instance} workflow={workflow} onDone={onRecovered} />}
    </section>
  );
}
