/**
 * The replay helper itself: its `actions` report is what makes the orchestrator tests able to catch a
 * task scheduled twice (Azure/azure-functions-durable-js#574), so it must show one when there is one.
 */
jest.mock('@azure/functions-core', () => ({ registerFunction: jest.fn(), setProgrammingModel: jest.fn() }), { virtual: true });

import type { OrchestrationContext, OrchestrationHandler } from 'durable-functions';
import { runOrchestration } from '../support/durable-replay';

const activities = { echo: (input: unknown) => input, slow: (input: unknown) => input };

describe('durable replay helper', () => {
  it('shows an already scheduled task put into a new Task.any as scheduled twice', async () => {
    const reusing: OrchestrationHandler = function* (context: OrchestrationContext) {
      const first = context.df.callActivity('echo', 1);
      const second = context.df.callActivity('slow', 2);
      yield context.df.Task.any([first, second]);
      yield context.df.Task.any([second]);
      return 'done';
    };

    const run = await runOrchestration('reusing', undefined, 'r-1', { orchestrators: { reusing }, activities });

    expect(run.status).toBe('completed');
    expect(run.actions.map((action) => action.functionName)).toEqual(['echo', 'slow', 'slow']);
  });

  it('passes results and failures through the history', async () => {
    const failing: OrchestrationHandler = function* (context: OrchestrationContext) {
      const value: number = yield context.df.callActivity('echo', 5);
      try {
        yield context.df.callActivity('missing', value);
      } catch (error) {
        return `caught: ${(error as Error).message.split('\n')[0]}`;
      }
      return 'not reached';
    };

    const run = await runOrchestration('failing', undefined, 'f-1', { orchestrators: { failing }, activities });

    expect(run.output).toMatch(/^caught: Activity function 'missing' failed: No activity named missing/);
  });

  it('reports an orchestrator that throws as failed, with its error', async () => {
    const throwing: OrchestrationHandler = function* (context: OrchestrationContext) {
      yield context.df.callActivity('echo', 1);
      throw new Error('bad input');
    };

    const run = await runOrchestration('throwing', undefined, 't-1', { orchestrators: { throwing }, activities });

    expect(run).toMatchObject({ status: 'failed', error: 'bad input' });
  });
});
