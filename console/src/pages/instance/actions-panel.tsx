/**
 * @module What can be done to the instance: suspend or resume, cancel, and (while it takes triggers) the
 * triggers its state answers and the form that sends one, with the operation it started.
 */
import { useState } from 'preact/hooks';
import type { AvailableTrigger, Instance } from '../../../../src/client';
import { useApi } from '../../api-context';
import { CancelControl } from '../../components/cancel-control';
import { EmptyState } from '../../components/empty-state';
import { OperationView } from '../../components/operation-view';
import { ProblemAlert } from '../../components/problem-alert';
import { SuspendControl } from '../../components/suspend-control';
import { TriggerForm } from '../../components/trigger-form';
import { useAsync } from '../../lib/use-async';

/** The statuses that take triggers (a suspended instance answers `notActive` until resumed). */
const TAKES_TRIGGERS = new Set<Instance['status']>(['initializing', 'waiting']);

function describeParameterTest(test: AvailableTrigger['parameters'][number]): string {
  const value = test.value !== undefined ? ` ${JSON.stringify(test.value)}` : '';
  return `${test.negated ? 'not ' : ''}${test.name} ${test.test}${value}${test.alternative ? ' (one of several)' : ''}`;
}

function describeTriggerNames(item: AvailableTrigger): string {
  if (item.timer) {
    const due = item.timer.dueAt ? `, due ${new Date(item.timer.dueAt).toLocaleString()}` : '';
    if (item.timer.after) return `Timer after ${item.timer.after}${item.timer.calendar ? ` (${item.timer.calendar} calendar)` : ''}${due}`;
    return `Timer at ${item.timer.at ?? item.timer.dueAt ?? '?'}`;
  }
  if (item.triggerNames.includes('*')) return item.exceptTriggerNames?.length ? `Any trigger except ${item.exceptTriggerNames.join(', ')}` : 'Any trigger';
  return item.triggerNames.join(' or ');
}

export function ActionsPanel({ instance, onChanged }: { instance: Instance; onChanged: () => void }) {
  const api = useApi();
  const { id: instanceId, etag, stateId, status } = instance;
  const [sentOperationId, setSentOperationId] = useState<string>();
  const takesTriggers = TAKES_TRIGGERS.has(status);
  const available = useAsync(async () => (takesTriggers ? api.getAvailableTriggers(instanceId) : undefined), [api, instanceId, etag, stateId, status]);
  return (
    <>
      <h2>Actions</h2>
      <div class="action-row">
        <SuspendControl instance={instance} onDone={onChanged} />
        <CancelControl instance={instance} onDone={onChanged} />
      </div>
      {takesTriggers ? (
        <>
          <h3>Available triggers</h3>
          {available.problem && <ProblemAlert problem={available.problem} context="Reading the available triggers failed" />}
          {available.data && available.data.items.length === 0 && <EmptyState title="No trigger moves this instance now" />}
          {available.data && available.data.items.length > 0 && (
            <ul class="available" data-testid="available-triggers">
              {available.data.items.map((item) => (
                <li key={item.transitionId}>
                  <strong>{describeTriggerNames(item)}</strong> takes <code>{item.transitionId}</code> to <code>{item.targetStateId}</code>
                  {item.parameters.length > 0 && <span class="muted"> (parameters: {item.parameters.map(describeParameterTest).join(', ')})</span>}
                </li>
              ))}
            </ul>
          )}
          {available.data?.refused && available.data.refused.length > 0 && (
            <p class="note" data-testid="refused-triggers">
              Not yours to send: {available.data.refused.map((item) => `${item.transitionId} (${item.reason})`).join('; ')}
            </p>
          )}
          {/* The form waits for the names it offers; a failed read still lets any name be sent. */}
          {(available.data || available.problem) && <TriggerForm key={stateId} instanceId={instanceId} available={available.data?.items} onSent={setSentOperationId} />}
        </>
      ) : status === 'suspended' ? (
        <p class="note">A suspended instance takes no triggers until it is resumed.</p>
      ) : (
        <p class="note">A {status} instance takes no triggers.</p>
      )}
      {sentOperationId && (
        <section aria-label="Sent trigger">
          <h3>Sent</h3>
          <OperationView key={sentOperationId} operationId={sentOperationId} onFinished={onChanged} />
        </section>
      )}
    </>
  );
}
