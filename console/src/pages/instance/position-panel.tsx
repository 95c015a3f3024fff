/** @module Where the instance is: its workflow version's diagram with the current state highlighted. */
import type { Instance } from '../../../../src/client';
import { useApi } from '../../api-context';
import { ProblemAlert } from '../../components/problem-alert';
import { StateDiagram } from '../../components/state-diagram';
import { useAsync } from '../../lib/use-async';

export function PositionPanel({ instance }: { instance: Instance }) {
  const api = useApi();
  const { id: instanceId, workflowId, workflowVersion, stateId, status } = instance;
  // Drawn again when the instance moves (state) or changes how it is shown (status).
  const diagram = useAsync(() => api.getDiagram(workflowId, { version: workflowVersion, instanceId }), [api, instanceId, workflowId, workflowVersion, stateId, status]);
  return (
    <>
      <h2>Position</h2>
      {diagram.problem && <ProblemAlert problem={diagram.problem} context="Reading the diagram failed" />}
      {diagram.data && <StateDiagram text={diagram.data} label={`Diagram of ${workflowId} with ${instanceId} in ${stateId}`} />}
    </>
  );
}
