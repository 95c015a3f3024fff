/**
 * @module An instance's armed timers: the transition each fires, where it leads, when (relative and
 * absolute) and what the definition says (`after`, `at`, a calendar).
 */
import type { Instance, Workflow } from '../../../src/client';
import { relativeTime } from '../lib/relative-time';
import { useNow } from '../lib/use-now';
import { TimeText } from './time-text';

export function TimerList({ instance, workflow }: { instance: Instance; workflow: Workflow | undefined }) {
  const now = useNow();
  const timers = instance.timers ?? [];
  if (timers.length === 0) return <p class="muted">No timer is armed in this state.</p>;
  const transitions = workflow?.states[instance.stateId]?.transitions ?? [];
  return (
    <table data-testid="timers">
      <caption class="visually-hidden">Armed timers</caption>
      <thead>
        <tr>
          <th scope="col">Transition</th>
          <th scope="col">To state</th>
          <th scope="col">Timer</th>
          <th scope="col">Due</th>
        </tr>
      </thead>
      <tbody>
        {timers.map((timer) => {
          const transition = transitions.find((candidate) => candidate.id === timer.transitionId);
          const definition = transition?.timer;
          const spec = definition?.after ? `after ${definition.after}` : definition?.at ? `at ${definition.at}` : undefined;
          const calendar = definition?.calendar;
          const overdue = new Date(timer.dueAt).getTime() <= now;
          return (
            <tr key={timer.transitionId}>
              <td>
                <code>{timer.transitionId}</code>
              </td>
              <td>{transition ? <code>{transition.targetStateId}</code> : <span class="muted">–</span>}</td>
              <td>{spec ? `${spec}${calendar ? ` (${calendar} calendar)` : ''}` : <span class="muted">–</span>}</td>
              <td>
                <strong>
                  {relativeTime(timer.dueAt, now) ?? timer.dueAt}
                  {overdue ? ' (firing)' : ''}
                </strong>{' '}
                <span class="muted">(</span>
                <TimeText value={timer.dueAt} />
                <span class="muted">)</span>
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
