/**
 * @module One instance: where it is (highlighted on its workflow's diagram), its context, interests,
 * armed timers, history and lifecycle events, and what can be done to it: send a trigger (after its dry
 * run), recover a fault, suspend or resume, cancel. Each panel (pages/instance/) reads what it shows; the
 * page reads the instance and its workflow version, and has every panel read again after an action.
 */
import { useState } from 'preact/hooks';
import { useApi } from '../api-context';
import { EmptyState } from '../components/empty-state';
import { JsonView } from '../components/json-view';
import { Link } from '../components/link';
import { ProblemAlert } from '../components/problem-alert';
import { TimerList } from '../components/timer-list';
import { useAsync } from '../lib/use-async';
import { ActionsPanel } from './instance/actions-panel';
import { EventsPanel } from './instance/events-panel';
import { InstanceFacts } from './instance/facts';
import { FaultPanel } from './instance/fault-panel';
import { HistoryPanel } from './instance/history-panel';
import { OffersPanel } from './instance/offers-panel';
import { PositionPanel } from './instance/position-panel';
import { WhyPanel } from './instance/why-panel';

export function InstancePage({ instanceId }: { instanceId: string }) {
  const api = useApi();
  const [generation, setGeneration] = useState(0);
  const refresh = () => setGeneration((value) => value + 1);
  const instance = useAsync(() => api.getInstance(instanceId), [api, instanceId, generation]);
  const loaded = instance.data;
  const workflow = useAsync(async () => (loaded ? api.getWorkflow(loaded.workflowId, loaded.workflowVersion) : undefined), [api, loaded?.workflowId, loaded?.workflowVersion]);

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
          <InstanceFacts instance={loaded} workflow={workflow.data} />
          <WhyPanel instanceId={instanceId} generation={generation} />
          <FaultPanel instance={loaded} workflow={workflow.data} onRecovered={refresh} />
          <PositionPanel instance={loaded} />
          <ActionsPanel instance={loaded} onChanged={refresh} />

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

          <HistoryPanel instanceId={instanceId} generation={generation} />
          <OffersPanel instanceId={instanceId} generation={generation} />
          <EventsPanel instance={loaded} />
        </>
      )}
    </section>
  );
}
