/**
 * @module One action on every instance a filter matches (`POST /api/instances/bulk`). The route has no
 * dry run, so the console makes one: it reads the filtered instances (the list's own walk) and counts
 * how many the action would change and how many it would report as conflicts, by status. Only that
 * count can be confirmed ("Cancel 3 instances…"); changing the action asks for a new count. The engine
 * checks each instance again under its lease, so the operation's summary is the final word.
 */
import { useState } from 'preact/hooks';
import { useApi } from '../api-context';
import type { BulkRequest, InstanceFilter, InstanceStatus } from '../../../src/client';
import { bulkActions, formatCount, readInstances, type BulkActionName } from '../lib/instance-listing';
import { useAsync } from '../lib/use-async';
import { asProblem } from '../api/api-error';
import { ConfirmedAction } from './confirmed-action';
import { navigate } from './link';
import { ProblemAlert } from './problem-alert';
import type { ClientProblem } from '../../../src/client';

const statusOrder: InstanceStatus[] = ['waiting', 'initializing', 'suspended', 'faulted', 'complete', 'cancelled'];

interface Count {
  /** The action, state and force the count was made for: a change asks for a new count. */
  request: string;
  total: number;
  truncated: boolean;
  byStatus: Partial<Record<InstanceStatus, number>>;
  changes: number;
}

const plural = (count: number, one: string, many: string) => `${formatCount(count)} ${count === 1 ? one : many}`;

function describeCount(count: Count, label: string): string {
  const matched = `${count.truncated ? `${formatCount(count.total)}+ instances match (counted the first ${formatCount(count.total)})` : `${plural(count.total, 'instance matches', 'instances match')}`}`;
  const statuses = statusOrder
    .filter((status) => (count.byStatus[status] ?? 0) > 0)
    .map((status) => `${formatCount(count.byStatus[status]!)} ${status}`)
    .join(', ');
  const conflicts = count.total - count.changes;
  const effect =
    count.changes === 0
      ? `${label} would change none of them.`
      : conflicts === 0
        ? `${label} would change ${count.total === 1 ? 'it' : `all ${formatCount(count.total)}`}.`
        : `${label} would change ${formatCount(count.changes)}; ${formatCount(conflicts)} would be reported as a conflict.`;
  return `${matched}${statuses ? `: ${statuses}` : ''}. ${effect}`;
}

export function BulkActionForm({ filter }: { filter: InstanceFilter & { workflowId: string } }) {
  const api = useApi();
  const [action, setAction] = useState<BulkActionName>('cancel');
  const [stateId, setStateId] = useState('');
  const [force, setForce] = useState(false);
  const [count, setCount] = useState<Count>();
  const [problem, setProblem] = useState<ClientProblem>();
  const [busy, setBusy] = useState(false);
  const definition = useAsync(() => api.getWorkflow(filter.workflowId), [api, filter.workflowId]);
  const chosen = bulkActions.find((candidate) => candidate.action === action)!;
  const request = JSON.stringify({ action, stateId, force });
  const current = count?.request === request ? count : undefined;

  const dryRun = async () => {
    setBusy(true);
    setProblem(undefined);
    try {
      const read = await readInstances(api, filter);
      const byStatus: Count['byStatus'] = {};
      for (const instance of read.items) byStatus[instance.status] = (byStatus[instance.status] ?? 0) + 1;
      const changes = read.items.filter((instance) => chosen.changes(instance.status, force)).length;
      setCount({ request, total: read.items.length, truncated: read.truncated, byStatus, changes });
    } catch (error) {
      setProblem(asProblem(error));
    } finally {
      setBusy(false);
    }
  };
  const body = (): BulkRequest => ({
    action,
    filter: {
      workflowId: filter.workflowId,
      ...(filter.stateId ? { stateId: filter.stateId } : {}),
      ...(filter.status ? { status: filter.status } : {}),
      ...(filter.subject ? { subject: filter.subject } : {}),
    },
    ...(action === 'recover' ? { stateId } : {}),
    ...(action === 'delete' && force ? { force: true } : {}),
  });
  const many = current ? `${formatCount(current.changes)}${current.truncated ? '+' : ''} ${current.changes === 1 && !current.truncated ? 'instance' : 'instances'}` : '';
  const ready = action !== 'recover' || stateId !== '';

  return (
    <form class="bulk-form" aria-label="Act on every instance that matches" onSubmit={(event) => (event.preventDefault(), ready && void dryRun())}>
      <div class="inline-form">
        <div class="field">
          <label for="bulk-action">Action</label>
          <select id="bulk-action" value={action} onChange={(event) => setAction(event.currentTarget.value as BulkActionName)}>
            {bulkActions.map((candidate) => (
              <option key={candidate.action} value={candidate.action}>
                {candidate.label}
              </option>
            ))}
          </select>
        </div>
        {action === 'recover' && (
          <div class="field">
            <label for="bulk-recover-state">Recover into state</label>
            <select id="bulk-recover-state" value={stateId} onChange={(event) => setStateId(event.currentTarget.value)}>
              <option value="">Choose a state</option>
              {Object.entries(definition.data?.states ?? {}).map(([id, state]) => (
                <option key={id} value={id}>
                  {state.displayName ? `${state.displayName} (${id})` : id}
                </option>
              ))}
            </select>
          </div>
        )}
        {action === 'delete' && (
          <div class="field checkbox-field">
            <input id="bulk-force" type="checkbox" checked={force} onChange={(event) => setForce(event.currentTarget.checked)} />
            <label for="bulk-force">Delete waiting and initializing instances too</label>
          </div>
        )}
        <div class="field field-actions">
          <button type="submit" class={current ? 'secondary' : undefined} disabled={busy || !ready}>
            Dry run: count them
          </button>
        </div>
      </div>
      {problem && <ProblemAlert problem={problem} context="Counting the instances failed" />}
      <div aria-live="polite">
        {current && (
          <p class="bulk-count" data-testid="bulk-count">
            {describeCount(current, chosen.label)}
          </p>
        )}
      </div>
      {current && current.changes > 0 && (
        <ConfirmedAction
          label={`${chosen.label} ${many}…`}
          question={`${chosen.label} ${many} of ${filter.workflowId}? Each is checked again when the action reaches it.`}
          confirmLabel={`Confirm ${action}`}
          yesLabel={`Yes, ${action} ${many}`}
          noLabel="Keep them"
          tone={action === 'cancel' || action === 'delete' ? 'danger' : undefined}
          failureContext={`The ${action} was not accepted`}
          run={async () => navigate({ page: 'operation', operationId: (await api.bulkInstances(body())).operationId })}
          onDone={() => undefined}
        />
      )}
    </form>
  );
}
