/**
 * @module One instance: where it is (highlighted on its workflow's diagram), its context, interests,
 * armed timers, history and lifecycle events, and what can be done to it: send a trigger (after its dry
 * run), recover a fault, suspend or resume, cancel.
 */
import { useState } from 'preact/hooks';
import { useApi } from '../api-context';
import type { AvailableTrigger } from '../api/types';
import { CancelControl } from '../components/cancel-control';
import { RecoverForm } from '../components/recover-form';
import { EmptyState } from '../components/empty-state';
import { EventList } from '../components/event-list';
import { SuspendControl } from '../components/suspend-control';
import { TimerList } from '../components/timer-list';
import { JsonView } from '../components/json-view';
import { Link } from '../components/link';
import { OperationView } from '../components/operation-view';
import { ProblemAlert } from '../components/problem-alert';
import { StateDiagram } from '../components/state-diagram';
import { StatusBadge } from '../components/status-badge';
import { TimeText } from '../components/time-text';
import { TriggerForm } from '../components/trigger-form';
import { TraceView } from '../components/trace-view';
import { useAsync } from '../lib/use-async';

/** The statuses that take triggers (a suspended instance answers `notActive` until resumed). */
const TAKES_TRIGGERS = new Set(['initializing', 'waiting']);

function describeParameterTest(test: NonNullable<AvailableTrigger['parameters']>[number]): string {
  const value = test.value !== undefined ? ` ${JSON.stringify(test.value)}` : '';
  return `${test.negated ? 'not ' : ''}${test.name ?? '?'} ${test.test ?? ''}${value}${test.alternative ? ' (one of several)' : ''}`;
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

export function InstancePage({ instanceId }: { instanceId: string }) {
  const api = useApi();
  const [generation, setGeneration] = useState(0);
  const refresh = () => setGeneration((value) => value + 1);
  const [sentOperationId, setSentOperationId] = useState<string>();
  const instance = useAsync(() => api.getInstance(instanceId), [api, instanceId, generation]);
  const history = useAsync(() => api.getHistory(instanceId), [api, instanceId, generation]);
  const offers = useAsync(() => api.getOffers(instanceId), [api, instanceId, generation]);
  const capabilities = useAsync(() => api.capabilities(), [api]);
  const loaded = instance.data;
  const workflow = useAsync(async () => (loaded ? api.getWorkflow(loaded.workflowId, loaded.workflowVersion) : undefined), [api, loaded?.workflowId, loaded?.workflowVersion]);
  const diagram = useAsync(
    async () => (loaded && capabilities.data?.diagram ? api.getDiagram(loaded.workflowId, { version: loaded.workflowVersion, instanceId }) : undefined),
    [api, instanceId, loaded?.workflowId, loaded?.workflowVersion, loaded?.stateId, loaded?.status, capabilities.data?.diagram],
  );
  const available = useAsync(
    async () => (loaded && capabilities.data?.availableTriggers && TAKES_TRIGGERS.has(loaded.status) ? api.getAvailableTriggers(instanceId) : undefined),
    [api, instanceId, loaded?.etag, loaded?.stateId, loaded?.status, capabilities.data?.availableTriggers],
  );
  // Only a workflow with a startInstance action has children to list.
  const startsChildren = workflow.data !== undefined && JSON.stringify(workflow.data.states).includes('"startInstance"');
  const events = useAsync(
    async () => (capabilities.data?.lifecycleEvents ? api.getEvents(instanceId) : undefined),
    [api, instanceId, loaded?.etag, capabilities.data?.lifecycleEvents],
  );

  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title" tabIndex={-1}>
        Instance {instanceId}
      </h1>
      {instance.problem?.status === 404 ? (
        <EmptyState title={`No instance has the id ${instanceId}`}>
          <p>
            It was never started, or it was deleted. Ids are exact (case and spaces count). <Link to={{ page: 'instances', filter: {} }}>Go to the instance list</Link>
          </p>
        </EmptyState>
      ) : (
        instance.problem && <ProblemAlert problem={instance.problem} context="Reading the instance failed" />
      )}
      {instance.loading && !loaded && <p aria-live="polite">Loading instance…</p>}
      {loaded && (
        <>
          <dl class="facts">
            <div>
              <dt>Workflow</dt>
              <dd>
                <Link to={{ page: 'workflow', workflowId: loaded.workflowId, version: loaded.workflowVersion }}>
                  {loaded.workflowId} v{loaded.workflowVersion}
                </Link>
              </dd>
            </div>
            <div>
              <dt>State</dt>
              <dd data-testid="instance-state">
                {workflow.data?.states[loaded.stateId]?.displayName ?? loaded.stateId} <span class="muted">({loaded.stateId})</span>
              </dd>
            </div>
            <div>
              <dt>Status</dt>
              <dd data-testid="instance-status">
                <StatusBadge status={loaded.status} />
              </dd>
            </div>
            <div>
              <dt>Created</dt>
              <dd>
                <TimeText value={loaded.createdAt} />
              </dd>
            </div>
            <div>
              <dt>Updated</dt>
              <dd>
                <TimeText value={loaded.updatedAt} />
              </dd>
            </div>
            {startsChildren && (
              <div>
                <dt>Children</dt>
                <dd>
                  <Link to={{ page: 'instances', filter: { parentId: instanceId } }}>Instances it started</Link>
                </dd>
              </div>
            )}
            {loaded.parent && (
              <div>
                <dt>Parent</dt>
                <dd>
                  <Link to={{ page: 'instance', instanceId: loaded.parent.instanceId }}>{loaded.parent.instanceId}</Link>
                </dd>
              </div>
            )}
          </dl>

          {loaded.fault && (
            <section class="fault" aria-labelledby="fault-title">
              <h2 id="fault-title">Fault</h2>
              <p class="problem-detail" data-testid="fault-message">
                {loaded.fault.message}
              </p>
              <p class="muted">
                Trigger {loaded.fault.triggerId ?? '–'} at <TimeText value={loaded.fault.at} />
              </p>
              {loaded.status === 'faulted' && <RecoverForm instance={loaded} workflow={workflow.data} onDone={refresh} />}
            </section>
          )}

          <h2>Position</h2>
          {diagram.problem && <ProblemAlert problem={diagram.problem} context="Reading the diagram failed" />}
          {capabilities.data && !capabilities.data.diagram && <p class="note">This server offers no diagram route; the instance is in {loaded.stateId}.</p>}
          {diagram.data && <StateDiagram text={diagram.data} label={`Diagram of ${loaded.workflowId} with ${instanceId} in ${loaded.stateId}`} />}

          <h2>Actions</h2>
          <div class="action-row">
            {capabilities.data?.suspendResume && <SuspendControl instance={loaded} onDone={refresh} />}
            <CancelControl instance={loaded} onDone={refresh} />
          </div>
          {TAKES_TRIGGERS.has(loaded.status) ? (
            <>
              <h3>Available triggers</h3>
              {available.problem && <ProblemAlert problem={available.problem} context="Reading the available triggers failed" />}
              {capabilities.data && !capabilities.data.availableTriggers && (
                <p class="note">This server does not list available triggers; any trigger name can be sent.</p>
              )}
              {available.data && available.data.items.length === 0 && <EmptyState title="No trigger moves this instance now" />}
              {available.data && available.data.items.length > 0 && (
                <ul class="available" data-testid="available-triggers">
                  {available.data.items.map((item) => (
                    <li key={item.transitionId}>
                      <strong>{describeTriggerNames(item)}</strong> takes <code>{item.transitionId}</code> to <code>{item.targetStateId}</code>
                      {item.parameters && item.parameters.length > 0 && (
                        <span class="muted">
                          {' '}
                          (parameters: {item.parameters.map(describeParameterTest).join(', ')})
                        </span>
                      )}
                    </li>
                  ))}
                </ul>
              )}
              {capabilities.data && (!capabilities.data.availableTriggers || available.data || available.problem) && (
                <TriggerForm
                  key={loaded.stateId}
                  instanceId={instanceId}
                  available={available.data?.items}
                  dryRunAvailable={capabilities.data.dryRun}
                  onSent={setSentOperationId}
                />
              )}
            </>
          ) : loaded.status === 'suspended' ? (
            <p class="note">A suspended instance takes no triggers until it is resumed.</p>
          ) : (
            <p class="note">A {loaded.status} instance takes no triggers.</p>
          )}
          {sentOperationId && (
            <section aria-label="Sent trigger">
              <h3>Sent</h3>
              <OperationView key={sentOperationId} operationId={sentOperationId} onFinished={refresh} />
            </section>
          )}

          <h2>Interests</h2>
          {loaded.interests.length === 0 ? (
            <p class="muted">None: only triggers addressed to {instanceId} reach it.</p>
          ) : (
            <ul class="inline-list" data-testid="interests">
              {loaded.interests.map((interest) => (
                <li key={interest}>
                  <Link to={{ page: 'instances', filter: { subject: interest } }}>
                    <code>{interest}</code>
                  </Link>
                </li>
              ))}
            </ul>
          )}

          <h2>Timers</h2>
          <TimerList instance={loaded} workflow={workflow.data} />

          <h2>Context</h2>
          <JsonView value={loaded.context} label="Context JSON" />

          <h2>History</h2>
          {history.problem && <ProblemAlert problem={history.problem} context="Reading the history failed" />}
          {history.data && history.data.items.length === 0 && <p class="muted">No transitions yet.</p>}
          {history.data && history.data.items.length > 0 && (
            <ol class="timeline" data-testid="history">
              {history.data.items.map((entry, index) => (
                <li key={index}>
                  <TimeText value={entry.at} /> <strong>{entry.event ?? 'change'}</strong>
                  {entry.fromVersion !== undefined && entry.toVersion !== undefined && (
                    <span>
                      {' '}
                      from v{entry.fromVersion} to v{entry.toVersion}
                    </span>
                  )}
                  {entry.transitionId && (
                    <>
                      {' '}
                      by <code>{entry.transitionId}</code>
                    </>
                  )}{' '}
                  <span>
                    {entry.fromStateId ? `${entry.fromStateId} → ` : 'into '}
                    {entry.toStateId ?? '–'}
                  </span>
                  {(entry.operationId ?? entry.triggerId) && (
                    <span class="muted">
                      {' '}
                      (operation <Link to={{ page: 'operation', operationId: (entry.operationId ?? entry.triggerId)! }}>{entry.operationId ?? entry.triggerId}</Link>)
                    </span>
                  )}{' '}
                  {entry.status && <StatusBadge status={entry.status} />}
                  {entry.by && <span class="muted"> by {entry.by}</span>}
                  {entry.contextPatch && <JsonView value={entry.contextPatch} label="Context patch" />}
                </li>
              ))}
            </ol>
          )}

          <h2>Recent triggers that changed nothing</h2>
          {offers.problem && <ProblemAlert problem={offers.problem} context="Reading the recent offers failed" />}
          {offers.data && offers.data.items.length === 0 && <p class="muted">None: every trigger offered recently changed it (see the history), or none was offered.</p>}
          {offers.data && offers.data.items.length > 0 && (
            <ol class="timeline" data-testid="offers">
              {offers.data.items.map((offer) => (
                <li key={offer.operationId}>
                  <TimeText value={offer.at} /> <strong>{offer.triggerName}</strong> <StatusBadge status={offer.outcome} />
                  {offer.fromStateId && <span> in {offer.fromStateId}</span>}
                  {offer.transitionId && (
                    <span>
                      {' '}
                      (<code>{offer.transitionId}</code>
                      {offer.toStateId ? ` → ${offer.toStateId}` : ''})
                    </span>
                  )}{' '}
                  <span class="muted">
                    (operation <Link to={{ page: 'operation', operationId: offer.operationId }}>{offer.operationId}</Link>)
                  </span>
                  {offer.trace && offer.trace.length > 0 && (
                    <details>
                      <summary>Why ({offer.trace.length})</summary>
                      <TraceView trace={offer.trace} />
                    </details>
                  )}
                </li>
              ))}
            </ol>
          )}

          {capabilities.data?.lifecycleEvents && (
            <>
              <h2>Lifecycle events</h2>
              {events.problem && <ProblemAlert problem={events.problem} context="Reading the lifecycle events failed" />}
              {events.data && <EventList instanceId={instanceId} events={events.data.items} onRedelivered={events.reload} />}
            </>
          )}
        </>
      )}
    </section>
  );
}
