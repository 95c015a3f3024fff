/** @module Recover for a faulted instance: choose the state to recover into (its entry steps run again). */
import { useState } from 'preact/hooks';
import { useApi } from '../api-context';
import { asProblem } from '../api/api-error';
import type { Instance, Problem, Workflow } from '../api/types';
import { ProblemAlert } from './problem-alert';

export function RecoverForm({ instance, workflow, onDone }: { instance: Instance; workflow: Workflow | undefined; onDone: () => void }) {
  const api = useApi();
  const [stateId, setStateId] = useState(instance.stateId);
  const [problem, setProblem] = useState<Problem>();
  const [busy, setBusy] = useState(false);
  return (
    <form
      class="inline-form"
      aria-label="Recover the instance"
      onSubmit={async (event) => {
        event.preventDefault();
        setBusy(true);
        setProblem(undefined);
        try {
          await api.recoverInstance(instance.id, stateId);
          onDone();
        } catch (error) {
          setProblem(asProblem(error));
        } finally {
          setBusy(false);
        }
      }}
    >
      <label for="recover-state">Recover into state</label>
      <select id="recover-state" value={stateId} onChange={(event) => setStateId(event.currentTarget.value)}>
        {Object.entries(workflow?.states ?? { [instance.stateId]: {} }).map(([id, state]) => (
          <option key={id} value={id}>
            {state.displayName ? `${state.displayName} (${id})` : id}
            {id === instance.stateId ? ' (current)' : ''}
          </option>
        ))}
      </select>
      <button type="submit" disabled={busy}>
        Recover
      </button>
      <p class="note">The state's entry conditions and actions run again.</p>
      {problem && <ProblemAlert problem={problem} context="Recover failed" />}
    </form>
  );
}
