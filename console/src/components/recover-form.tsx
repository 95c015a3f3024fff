/**
 * @module Recover for a faulted instance: choose the state to recover into (its entry steps run again),
 * and optionally repair the context first with a JSON Merge Patch (bad data would fault it again).
 */
import { useState } from 'preact/hooks';
import { useApi } from '../api-context';
import { asProblem } from '../api/api-error';
import type { Instance, ClientProblem, Workflow } from '../../../src/client';
import { ProblemAlert } from './problem-alert';

export function RecoverForm({ instance, workflow, onDone }: { instance: Instance; workflow: Workflow | undefined; onDone: () => void }) {
  const api = useApi();
  const [stateId, setStateId] = useState(instance.stateId);
  const [patchText, setPatchText] = useState('');
  const [problem, setProblem] = useState<ClientProblem>();
  const [busy, setBusy] = useState(false);
  return (
    <form
      class="inline-form"
      aria-label="Recover the instance"
      onSubmit={async (event) => {
        event.preventDefault();
        setBusy(true);
        setProblem(undefined);
        let contextPatch: Record<string, unknown> | undefined;
        if (patchText.trim()) {
          try {
            contextPatch = JSON.parse(patchText) as Record<string, unknown>;
          } catch (error) {
            setProblem({ title: 'The context patch is not JSON', status: 400, detail: error instanceof Error ? error.message : String(error) });
            setBusy(false);
            return;
          }
        }
        try {
          await (contextPatch ? api.recoverInstance(instance.id, stateId, contextPatch) : api.recoverInstance(instance.id, stateId));
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
      <label for="recover-context">Repair the context first (optional)</label>
      <textarea
        id="recover-context"
        rows={3}
        spellcheck={false}
        aria-describedby="recover-context-note"
        placeholder='{"amount": 120}'
        value={patchText}
        onInput={(event) => setPatchText(event.currentTarget.value)}
      />
      <button type="submit" disabled={busy}>
        Recover
      </button>
      <p class="note" id="recover-context-note">
        The state's entry conditions and actions run again, on the same data unless you patch it: a JSON Merge Patch sets the keys it names, merges nested objects, and <code>null</code> removes a key.
        The patch is kept in the history.
      </p>
      {problem && <ProblemAlert problem={problem} context="Recover failed" />}
    </form>
  );
}
