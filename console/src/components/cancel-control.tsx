/** @module Cancel for an active instance, behind an inline confirmation (no browser dialog). */
import { useState } from 'preact/hooks';
import { useApi } from '../api-context';
import { asProblem } from '../api/api-error';
import type { Instance, Problem } from '../api/types';
import { ProblemAlert } from './problem-alert';

export function CancelControl({ instance, onDone }: { instance: Instance; onDone: () => void }) {
  const api = useApi();
  const [confirming, setConfirming] = useState(false);
  const [problem, setProblem] = useState<Problem>();
  if (instance.status === 'complete' || instance.status === 'cancelled') return null;
  return (
    <div class="cancel-control">
      {!confirming ? (
        <button type="button" class="danger" onClick={() => setConfirming(true)}>
          Cancel instance…
        </button>
      ) : (
        <div role="group" aria-label="Confirm cancel">
          <span>Cancel {instance.id}? It takes no more triggers.</span>{' '}
          <button
            type="button"
            class="danger"
            onClick={async () => {
              setProblem(undefined);
              try {
                await api.cancelInstance(instance.id);
                setConfirming(false);
                onDone();
              } catch (error) {
                setProblem(asProblem(error));
              }
            }}
          >
            Yes, cancel it
          </button>{' '}
          <button type="button" class="secondary" onClick={() => setConfirming(false)}>
            Keep it
          </button>
        </div>
      )}
      {problem && <ProblemAlert problem={problem} context="Cancel failed" />}
    </div>
  );
}
