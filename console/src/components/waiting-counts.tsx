/**
 * @module A workflow's instances that are not final, counted per class and state
 * (`GET /workflows/{id}/waiting`): "312 waiting for Approve, oldest 9 days", fault causes grouped, each
 * count a link to the instances list filtered to that state (and status), and the oldest to its instance.
 */
import type { InstanceStatus, WaitingGroup } from '../../../src/client';
import { useApi } from '../api-context';
import { waitingClassText } from '../pages/instance/why-panel';
import { relativeTime } from '../lib/relative-time';
import { useAsync } from '../lib/use-async';
import { useNow } from '../lib/use-now';
import { Link } from './link';
import { ProblemAlert } from './problem-alert';

/** The status a class's instances have, for the list filter (leases, retries, children and triggers are all `waiting`). */
function statusOf(group: WaitingGroup): InstanceStatus {
  return group.class === 'faulted' || group.class === 'suspended' ? group.class : 'waiting';
}

function what(group: WaitingGroup): string {
  if (group.class === 'waitingForTrigger' && group.triggerNames?.length) return `waiting for ${group.triggerNames.join(' or ')}`;
  return waitingClassText[group.class];
}

export function WaitingCounts({ workflowId, generation }: { workflowId: string; generation: number }) {
  const api = useApi();
  const now = useNow();
  const summary = useAsync(() => api.getWorkflowWaiting(workflowId), [api, workflowId, generation]);
  return (
    <>
      <h2>Why instances are not moving</h2>
      {summary.problem && <ProblemAlert problem={summary.problem} context="Counting why instances wait failed" />}
      {summary.data?.truncated && <p class="note">Counted among the first {summary.data.scanned} instances only.</p>}
      {summary.data && summary.data.groups.length === 0 && <p class="muted">No instance of {workflowId} is waiting: all are final.</p>}
      {summary.data && summary.data.groups.length > 0 && (
        <table data-testid="waiting-counts">
          <caption class="visually-hidden">Instances of {workflowId} that are not final, per reason and state</caption>
          <thead>
            <tr>
              <th scope="col">Instances</th>
              <th scope="col">Why</th>
              <th scope="col">State</th>
              <th scope="col">Oldest</th>
            </tr>
          </thead>
          <tbody>
            {summary.data.groups.map((group) => (
              <tr key={`${group.class} ${group.stateId}`} data-class={group.class}>
                <td class="number">
                  <Link to={{ page: 'instances', filter: { workflowId, stateId: group.stateId, status: statusOf(group) } }}>{group.count}</Link>
                </td>
                <td>
                  {what(group)}
                  {group.causes && (
                    <ul class="causes">
                      {group.causes.map((cause) => (
                        <li key={cause.cause}>
                          {cause.count}: {cause.cause}
                        </li>
                      ))}
                      {group.otherCauses ? <li>{group.otherCauses} with other causes</li> : null}
                    </ul>
                  )}
                </td>
                <td>{group.stateId}</td>
                <td>
                  <Link to={{ page: 'instance', instanceId: group.oldest.instanceId }}>{group.oldest.instanceId}</Link>, {relativeTime(group.oldest.since, now) ?? group.oldest.since}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
