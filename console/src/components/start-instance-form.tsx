/**
 * @module Starts an instance of a workflow (`POST /api/instances`): an optional id and an optional
 * context, then the new instance's page. A context that is not a JSON object is refused before any call;
 * the API's invalid fields (and a taken id, 409) are shown beside their inputs.
 */
import { useState } from 'preact/hooks';
import { useApi } from '../api-context';
import { asProblem } from '../api/api-error';
import type { ClientProblem } from '../../../src/client';
import { FieldError, invalidProps, splitProblem, type FieldErrors } from './field-error';
import { navigate } from './link';
import { ProblemAlert } from './problem-alert';

function parseContext(text: string): { context?: Record<string, unknown>; error?: string } {
  if (!text.trim()) return {};
  try {
    const value: unknown = JSON.parse(text);
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return { error: 'The context must be a JSON object' };
    return { context: value as Record<string, unknown> };
  } catch (error) {
    return { error: `Not valid JSON: ${error instanceof Error ? error.message : String(error)}` };
  }
}

export function StartInstanceForm({ workflowId, latestVersion }: { workflowId: string; latestVersion: number }) {
  const api = useApi();
  const [instanceId, setInstanceId] = useState('');
  const [contextText, setContextText] = useState('');
  const [inputErrors, setInputErrors] = useState<FieldErrors>({});
  const [problem, setProblem] = useState<ClientProblem>();
  const [busy, setBusy] = useState(false);

  const start = async () => {
    setInputErrors({});
    setProblem(undefined);
    const { context, error } = parseContext(contextText);
    if (error) return setInputErrors({ context: error });
    setBusy(true);
    try {
      const created = await api.createInstance({ workflowId, ...(instanceId.trim() ? { instanceId: instanceId.trim() } : {}), ...(context ? { context } : {}) });
      navigate({ page: 'instance', instanceId: created.id });
    } catch (failure) {
      const answered = asProblem(failure);
      // A taken id is the id field's problem.
      if (answered.status === 409 && instanceId.trim()) setInputErrors({ instanceId: answered.detail ?? answered.title });
      else setProblem(answered);
    } finally {
      setBusy(false);
    }
  };
  const { byField, rest } = splitProblem(problem, ['instanceId', 'context']);
  const errors: FieldErrors = { ...byField, ...inputErrors };
  return (
    <form
      class="start-form"
      aria-label="Start an instance"
      onSubmit={(event) => {
        event.preventDefault();
        void start();
      }}
    >
      <p class="note">It starts on the latest version, v{latestVersion}, in its initial state.</p>
      <div class="field">
        <label for="start-instance-id">Instance id (optional)</label>
        <input
          id="start-instance-id"
          value={instanceId}
          placeholder="a new id is made when empty"
          {...invalidProps('start-instance-id', errors.instanceId)}
          onInput={(event) => setInstanceId(event.currentTarget.value)}
        />
        <FieldError id="start-instance-id" error={errors.instanceId} />
      </div>
      <div class="field">
        <label for="start-context">Context (JSON object, optional)</label>
        <textarea
          id="start-context"
          rows={4}
          value={contextText}
          placeholder='{"claimantId": "ann"}'
          {...invalidProps('start-context', errors.context)}
          onInput={(event) => setContextText(event.currentTarget.value)}
        />
        <FieldError id="start-context" error={errors.context} />
      </div>
      {rest && <ProblemAlert problem={rest} context="The instance was not started" />}
      <div class="field-actions">
        <button type="submit" disabled={busy}>
          Start instance
        </button>
      </div>
    </form>
  );
}
