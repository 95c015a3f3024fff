/**
 * @module "Why is it not moving?": the engine's answer for one instance (`GET /instances/{id}/waiting`),
 * the primary class first, each reason with what to do about it. Read again after every action.
 */
import type { WaitingAnswer, WaitingReason } from '../../../../src/client';
import { Link } from '../../components/link';
import { ProblemAlert } from '../../components/problem-alert';
import { TimeText } from '../../components/time-text';
import { useApi } from '../../api-context';
import { relativeTime } from '../../lib/relative-time';
import { useAsync } from '../../lib/use-async';
import { useNow } from '../../lib/use-now';

/** A class as a reader says it. */
export const waitingClassText: Record<WaitingAnswer['class'], string> = {
  final: 'Final: it will not move again',
  faulted: 'Faulted',
  suspended: 'Suspended',
  queuedForSlot: 'Queued for a concurrency slot',
  waitingForRoom: 'Waiting for room in a full state',
  leaseHeld: 'Lease held by a worker',
  waitingForRetry: 'Waiting for a retry',
  debounced: 'Debounced: a burst of triggers held back',
  waitingForChildren: 'Waiting for children',
  waitingForTimer: 'Waiting for a timer',
  waitingForTrigger: 'Waiting for a trigger',
  heldNotifications: 'Holding notifications',
  stranded: 'Stranded: nothing can move it but an operator',
};

function ReasonDetail({ reason, now }: { reason: WaitingReason; now: number }) {
  switch (reason.class) {
    case 'final':
      return (
        <p>
          {reason.status} at <TimeText value={reason.at} />
        </p>
      );
    case 'faulted':
      return (
        <>
          <p class="problem-detail">{reason.cause}</p>
          <p>
            Recover: <code>{reason.recover.cli}</code> or <code>{`${reason.recover.http.method} ${reason.recover.http.path} ${JSON.stringify(reason.recover.http.body)}`}</code>
          </p>
        </>
      );
    case 'suspended':
      return (
        <p>
          Since <TimeText value={reason.since} />
          {reason.by ? ` by ${reason.by}` : ''}. Resume: <code>{reason.resume.cli}</code>
        </p>
      );
    case 'leaseHeld':
      return (
        <p>
          {reason.heldByThisProcess ? 'Held by the server that answered' : 'Held by another worker: working, or crashed'}
          {reason.since && (
            <>
              {' '}
              since <TimeText value={reason.since} />
            </>
          )}
          {reason.infinite ? '. An infinite lease: it never expires on its own.' : reason.expiresBy ? `. Expires ${relativeTime(reason.expiresBy, now) ?? reason.expiresBy} unless renewed.` : '.'}
        </p>
      );
    case 'queuedForSlot':
      return (
        <ul>
          {reason.queued.map((place) => (
            <li key={`${place.key}\u0000${place.triggerId}`}>
              Trigger {place.triggerId} on key <code>{place.key}</code>: {place.position} of {place.queuedOnKey} waiting, {place.running}/{place.limit} running (priority {place.priority})
            </li>
          ))}
          <li>
            See the key: <code>{reason.view.cli}</code>
          </li>
        </ul>
      );
    case 'waitingForRetry':
      return (
        <p>
          Attempt {reason.attempt} of {reason.triggerName}, next {relativeTime(reason.nextAttemptAt, now) ?? reason.nextAttemptAt}: <code>{reason.stepPath}</code> failed with{' '}
          {reason.lastError.message}
        </p>
      );
    case 'waitingForRoom':
      return (
        <ul>
          {reason.waits.map((wait) => (
            <li key={`${wait.stateId}\u0000${wait.key}`}>
              Into <code>{wait.stateId}</code> on key <code>{wait.key}</code>: {wait.position} of {wait.queuedOnKey} waiting, {wait.members}/{wait.limit} in the state (until{' '}
              {relativeTime(wait.deadline, now) ?? wait.deadline})
            </li>
          ))}
          <li>
            See the key: <code>{reason.view.cli}</code>
          </li>
        </ul>
      );
    case 'debounced':
      return (
        <ul>
          {reason.bursts.map((burst) => (
            <li key={burst.triggerName}>
              {burst.coalesced} <code>{burst.triggerName}</code>: applied {relativeTime(burst.dueAt, now) ?? burst.dueAt} unless another comes first
              {burst.latestAt ? `, at the latest ${relativeTime(burst.latestAt, now) ?? burst.latestAt}` : ''}
              {burst.overdue && <strong> (overdue: is the timer host running?)</strong>}
            </li>
          ))}
        </ul>
      );
    case 'waitingForChildren':
      return (
        <ul>
          {reason.children.map((child) => (
            <li key={child.instanceId}>
              <Link to={{ page: 'instance', instanceId: child.instanceId }}>{child.instanceId}</Link> ({child.workflowId}): {child.status} in {child.stateId}
            </li>
          ))}
          {reason.moreChildren > 0 && <li>and {reason.moreChildren} more</li>}
        </ul>
      );
    case 'waitingForTimer':
      return (
        <ul>
          {reason.timers.map((timer) => (
            <li key={timer.transitionId}>
              {timer.transitionId} to {timer.targetStateId}, due {relativeTime(timer.dueAt, now) ?? timer.dueAt}
              {timer.overdue && <strong> (overdue: is the timer host running?)</strong>}
            </li>
          ))}
        </ul>
      );
    case 'waitingForTrigger':
      return (
        <>
          <ul>
            {reason.triggers.map((trigger) => (
              <li key={trigger.transitionId}>
                <code>{trigger.triggerNames.join(' or ')}</code>
                {trigger.exceptTriggerNames?.length ? ` except ${trigger.exceptTriggerNames.join(', ')}` : ''} to {trigger.targetStateId}
                {trigger.who ? `, sent by ${trigger.who.join(', ')}` : ''}
              </li>
            ))}
          </ul>
          <p class="muted">Reached by a trigger with any of the subjects {reason.subjects.join(', ')}.</p>
        </>
      );
    case 'heldNotifications':
      return (
        <p>
          {reason.count} held until it is resumed or recovered: {reason.triggers.map((trigger) => trigger.name).join(', ')}
        </p>
      );
    case 'stranded':
      return <p>Its state {reason.stateId} answers no trigger and no timer of it is armed: recover, migrate or cancel it.</p>;
  }
}

export function WhyPanel({ instanceId, generation }: { instanceId: string; generation: number }) {
  const api = useApi();
  const now = useNow();
  const answer = useAsync(() => api.getInstanceWaiting(instanceId), [api, instanceId, generation]);
  return (
    <section aria-labelledby="why-title" data-testid="why-panel">
      <h2 id="why-title">Why is it not moving?</h2>
      {answer.problem && <ProblemAlert problem={answer.problem} context="Asking why failed" />}
      {answer.data && (
        <>
          <p data-testid="why-class" data-class={answer.data.class}>
            <strong>{waitingClassText[answer.data.class]}</strong> since <TimeText value={answer.data.since} />
          </p>
          <ul class="why-reasons">
            {answer.data.reasons.map((reason) => (
              <li key={reason.class} data-class={reason.class}>
                {waitingClassText[reason.class]}
                <ReasonDetail reason={reason} now={now} />
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
