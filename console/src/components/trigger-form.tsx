/**
 * @module Sends a trigger to one instance: the form previews it first with a dry run (outcome, trace,
 * actions, raised triggers, events, context after) and sends only what was previewed.
 */
import { useState } from 'preact/hooks';
import { useApi } from '../api-context';
import { asProblem } from '../api/api-error';
import type { AvailableTrigger, DryRun, ClientProblem, InstanceTrigger } from '../../../src/client';
import { DryRunView } from './dry-run-view';
import { FieldError, invalidProps, splitProblem, type FieldErrors } from './field-error';
import { ProblemAlert } from './problem-alert';

function parseParameters(text: string): { parameters?: Record<string, unknown>; error?: string } {
  if (!text.trim()) return {};
  try {
    const value: unknown = JSON.parse(text);
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return { error: 'Parameters must be a JSON object' };
    return { parameters: value as Record<string, unknown> };
  } catch (error) {
    return { error: `Parameters are not valid JSON: ${error instanceof Error ? error.message : String(error)}` };
  }
}

export interface TriggerFormProps {
  instanceId: string;
  available: readonly AvailableTrigger[] | undefined;
  /** Called with the operation the API started for the trigger. */
  onSent: (operationId: string) => void;
}

export function TriggerForm({ instanceId, available, onSent }: TriggerFormProps) {
  const api = useApi();
  const names = [...new Set((available ?? []).flatMap((item) => item.triggerNames).filter((name) => name !== '*'))];
  const [name, setName] = useState(names[0] ?? '');
  const [parametersText, setParametersText] = useState('');
  const [contentType, setContentType] = useState('');
  const [problem, setProblem] = useState<ClientProblem>();
  /** What the form itself refused, per field (`form` for what belongs to none). */
  const [inputErrors, setInputErrors] = useState<FieldErrors>({});
  const [preview, setPreview] = useState<{ input: string; result: DryRun }>();
  const [busy, setBusy] = useState(false);

  const build = (): InstanceTrigger | undefined => {
    setInputErrors({});
    setProblem(undefined);
    if (!name.trim()) {
      setInputErrors({ name: 'A trigger name is required' });
      return undefined;
    }
    const { parameters, error } = parseParameters(parametersText);
    if (error) {
      setInputErrors({ parameters: error });
      return undefined;
    }
    return { name: name.trim(), ...(parameters ? { parameters } : {}), ...(contentType.trim() ? { contentType: contentType.trim() } : {}) };
  };
  const run = async (action: () => Promise<void>) => {
    setBusy(true);
    setProblem(undefined);
    try {
      await action();
    } catch (error) {
      setProblem(asProblem(error));
    } finally {
      setBusy(false);
    }
  };
  const dryRun = () => {
    const input = build();
    if (input) void run(async () => setPreview({ input: JSON.stringify(input), result: await api.dryRunInstanceTrigger(instanceId, input) }));
  };
  const send = () => {
    const input = build();
    if (!input) return;
    if (preview?.input !== JSON.stringify(input)) {
      setInputErrors({ form: 'The trigger changed since its dry run: run it again before sending' });
      return;
    }
    void run(async () => {
      const accepted = await api.sendInstanceTrigger(instanceId, input);
      setPreview(undefined);
      onSent(accepted.operationId);
    });
  };
  const previewed = preview?.result.instances.find((item) => item.instanceId === instanceId) ?? preview?.result.instances[0];
  const readyToSend = preview !== undefined && !busy;
  const { byField: refused, rest } = splitProblem(problem, ['name', 'parameters', 'contentType']);
  const errors: FieldErrors = { ...refused, ...inputErrors };

  return (
    <form
      class="trigger-form"
      aria-label="Send a trigger"
      onSubmit={(event) => {
        event.preventDefault();
        if (!preview) dryRun();
        else send();
      }}
    >
      <div class="field">
        <label for="trigger-name">Trigger name</label>
        <input
          id="trigger-name"
          list="trigger-names"
          value={name}
          required
          {...invalidProps('trigger-name', errors.name)}
          onInput={(event) => (setName(event.currentTarget.value), setPreview(undefined))}
        />
        <datalist id="trigger-names">
          {names.map((candidate) => (
            <option key={candidate} value={candidate} />
          ))}
        </datalist>
        <FieldError id="trigger-name" error={errors.name} />
      </div>
      <div class="field">
        <label for="trigger-parameters">Parameters (JSON object, optional)</label>
        <textarea
          id="trigger-parameters"
          rows={4}
          value={parametersText}
          placeholder='{"amount": 120}'
          {...invalidProps('trigger-parameters', errors.parameters)}
          onInput={(event) => (setParametersText(event.currentTarget.value), setPreview(undefined))}
        />
        <FieldError id="trigger-parameters" error={errors.parameters} />
      </div>
      <div class="field">
        <label for="trigger-content-type">Content type (optional)</label>
        <input
          id="trigger-content-type"
          value={contentType}
          {...invalidProps('trigger-content-type', errors.contentType)}
          onInput={(event) => (setContentType(event.currentTarget.value), setPreview(undefined))}
        />
        <FieldError id="trigger-content-type" error={errors.contentType} />
      </div>
      {errors.form && (
        <p class="problem" role="alert">
          {errors.form}
        </p>
      )}
      {rest && <ProblemAlert problem={rest} context="The trigger was not accepted" />}
      <div class="field-actions">
        <button type="button" class={preview ? 'secondary' : undefined} disabled={busy} onClick={dryRun}>
          Dry run
        </button>
        <button type="button" class={!preview ? 'secondary' : undefined} disabled={!readyToSend || busy} onClick={send}>
          Send for real
        </button>
      </div>
      <div aria-live="polite">{previewed && <DryRunView result={previewed} truncated={preview?.result.truncated} />}</div>
    </form>
  );
}
