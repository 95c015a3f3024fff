/**
 * @module What things cost (decision 0021, docs/guides/cost.md): an operation's counted requests
 * (`OperationCostList`, on the operation's page), and a workflow's operations of the last 30 days per day
 * with the estimate from the server's price table and its date (`WorkflowCostView`, on the workflow's page).
 */
import type { OperationCost, WorkflowCost } from '../../../src/client';
import { useApi } from '../api-context';
import { useAsync } from '../lib/use-async';
import { ProblemAlert } from './problem-alert';

/** Storage requests of every kind together. */
export function storageRequests(cost: OperationCost): number {
  const { tableRead, tableQuery, tableWrite, blobLease, blobRead, blobWrite } = cost.storage;
  return tableRead + tableQuery + tableWrite + blobLease + blobRead + blobWrite;
}

/** An amount of the estimate, to the millionth the server rounds to. */
export function money(amount: number, currency: string): string {
  return `${amount.toFixed(6)} ${currency}`;
}

export function OperationCostList({ cost }: { cost: OperationCost }) {
  const { storage, outbound, activities } = cost;
  return (
    <dl class="summary" aria-label="Cost" data-testid="operation-cost">
      <div>
        <dt>storage requests</dt>
        <dd>{storageRequests(cost)}</dd>
      </div>
      <div>
        <dt>table read / query / write</dt>
        <dd>
          {storage.tableRead} / {storage.tableQuery} / {storage.tableWrite}
        </dd>
      </div>
      <div>
        <dt>blob lease / read / write</dt>
        <dd>
          {storage.blobLease} / {storage.blobRead} / {storage.blobWrite}
        </dd>
      </div>
      <div>
        <dt>outbound calls</dt>
        <dd>
          {outbound.calls} ({outbound.bytesSent} B sent, {outbound.bytesReceived} B received)
        </dd>
      </div>
      <div>
        <dt>durable activities</dt>
        <dd>{activities}</dd>
      </div>
    </dl>
  );
}

function CostTable({ cost }: { cost: WorkflowCost }) {
  return (
    // Focusable: on a phone the table scrolls sideways inside itself, and a keyboard must reach it (axe's scrollable-region-focusable).
    <table data-testid="workflow-cost" tabIndex={0} aria-label={`Cost of ${cost.workflowId} per day`}>
      <caption class="visually-hidden">
        Cost of {cost.workflowId}'s operations per UTC day since {cost.since}
      </caption>
      <thead>
        <tr>
          <th scope="col">Day</th>
          <th scope="col">Operations</th>
          <th scope="col">Storage requests</th>
          <th scope="col">Outbound calls</th>
          <th scope="col">Activities</th>
          <th scope="col">Estimate</th>
        </tr>
      </thead>
      <tbody>
        {cost.days.map((day) => (
          <tr key={day.day}>
            <th scope="row">{day.day}</th>
            <td class="number">{day.operations}</td>
            <td class="number">{day.estimate.storageRequests}</td>
            <td class="number">{day.cost.outbound.calls}</td>
            <td class="number">{day.cost.activities}</td>
            <td class="number">{money(day.estimate.total, day.estimate.currency)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function WorkflowCostView({ workflowId, generation }: { workflowId: string; generation: number }) {
  const api = useApi();
  const cost = useAsync(() => api.getWorkflowCost(workflowId), [api, workflowId, generation]);
  return (
    <>
      <h2>What it costs</h2>
      {cost.problem && <ProblemAlert problem={cost.problem} context="Reading the cost failed" />}
      {cost.data && (
        <>
          <p data-testid="workflow-cost-total">
            {cost.data.operations} {cost.data.operations === 1 ? 'operation' : 'operations'} since {cost.data.since}: {cost.data.estimate.storageRequests} storage requests, estimated{' '}
            {money(cost.data.estimate.total, cost.data.estimate.currency)}
          </p>
          {cost.data.days.length > 0 && <CostTable cost={cost.data} />}
          <p class="muted" data-testid="workflow-cost-prices">
            Prices of {cost.data.prices.region}, taken on {cost.data.prices.takenOn}. Functions execution time and the durable backend's own storage are not counted.
          </p>
        </>
      )}
    </>
  );
}
