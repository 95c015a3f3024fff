/** What the progress bar counts: the operation's `progress` when the server sends it, else its summary. */
import type { ApiOperation } from '../../src/cli/api';
import { operationProgress } from '../../src/client';
import { emptySummary } from '../../src/engine/operations';

function operation(fields: Partial<ApiOperation>): ApiOperation {
  return { id: 'op', kind: 'trigger', triggerId: 'op', status: 'running', createdAt: '', updatedAt: '', candidates: 0, summary: emptySummary(), instances: [], ...fields };
}

it('uses progress while the server reports it', () => {
  expect(operationProgress(operation({ progress: { total: 300, processed: 120 } }))).toEqual({ processed: 120, total: 300 });
  expect(operationProgress(operation({ progress: { processed: 40 } }))).toEqual({ processed: 40, total: undefined });
  expect(operationProgress(operation({ status: 'succeeded', progress: { processed: 40 } }))).toEqual({ processed: 40, total: 40 });
});

it('falls back to the outcomes counted of the candidates', () => {
  expect(operationProgress(operation({ status: 'notStarted' }))).toEqual({ processed: 0, total: undefined });
  expect(operationProgress(operation({ candidates: 10, summary: { ...emptySummary(), transitioned: 3, faulted: 1 } }))).toEqual({ processed: 4, total: 10 });
  expect(operationProgress(operation({ status: 'succeeded', candidates: 0 }))).toEqual({ processed: 0, total: 0 });
});
