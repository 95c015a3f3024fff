/** @module An instance's facts: workflow version, state, status, when, and its parent and children. */
import type { Instance, Workflow } from '../../../../src/client';
import { Link } from '../../components/link';
import { StatusBadge } from '../../components/status-badge';
import { TimeText } from '../../components/time-text';

export function InstanceFacts({ instance, workflow }: { instance: Instance; workflow: Workflow | undefined }) {
  // Only a workflow with a startInstance action has children to list.
  const startsChildren = workflow !== undefined && JSON.stringify(workflow.states).includes('"startInstance"');
  return (
    <dl class="facts">
      <div>
        <dt>Workflow</dt>
        <dd>
          <Link to={{ page: 'workflow', workflowId: instance.workflowId, version: instance.workflowVersion }}>
            {instance.workflowId} v{instance.workflowVersion}
          </Link>
        </dd>
      </div>
      <div>
        <dt>State</dt>
        <dd data-testid="instance-state">
          {workflow?.states[instance.stateId]?.displayName ?? instance.stateId} <span class="muted">({instance.stateId})</span>
        </dd>
      </div>
      <div>
        <dt>Status</dt>
        <dd data-testid="instance-status">
          <StatusBadge status={instance.status} />
        </dd>
      </div>
      <div>
        <dt>Created</dt>
        <dd>
          <TimeText value={instance.createdAt} />
        </dd>
      </div>
      <div>
        <dt>Updated</dt>
        <dd>
          <TimeText value={instance.updatedAt} />
        </dd>
      </div>
      {startsChildren && (
        <div>
          <dt>Children</dt>
          <dd>
            <Link to={{ page: 'instances', filter: { parentId: instance.id } }}>Instances it started</Link>
          </dd>
        </div>
      )}
      {instance.parent && (
        <div>
          <dt>Parent</dt>
          <dd>
            <Link to={{ page: 'instance', instanceId: instance.parent.instanceId }}>{instance.parent.instanceId}</Link>
          </dd>
        </div>
      )}
    </dl>
  );
}
