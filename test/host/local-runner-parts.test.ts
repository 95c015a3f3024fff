/**
 * The local runner's parts with a narrow interface of their own: the retry of an activity call
 * (activity-retry.ts) and the bookkeeping of the runs in flight that `Prefer: wait` reads (operation-runs.ts).
 */
import { FlowQueuedError, LeaseUnavailableError, ValidationError } from '../../src/engine/model';
import { withActivityRetry } from '../../src/host/local/activity-retry';
import { OperationRuns } from '../../src/host/local/operation-runs';

const policy = { maxAttempts: 3, firstRetryIntervalInMs: 1, backoffCoefficient: 1, maxRetryIntervalInMs: 1 };

/** A step that throws each of `failures` in turn, then answers 'done'; `calls` counts its calls. */
function failingStep(failures: unknown[]) {
  const step = {
    calls: 0,
    run: async () => {
      step.calls += 1;
      const failure = failures.shift();
      if (failure) throw failure;
      return 'done';
    },
  };
  return step;
}

describe('withActivityRetry', () => {
  it('calls the step again after retryable failures until it answers', async () => {
    const step = failingStep([new LeaseUnavailableError('busy', 0), new LeaseUnavailableError('busy', 0)]);
    await expect(withActivityRetry(step.run, policy, new AbortController().signal)).resolves.toBe('done');
    expect(step.calls).toBe(3);
  });

  it('gives up after the policy’s attempts with the last failure', async () => {
    const failures = ['one', 'two', 'three', 'four'].map((lease) => new LeaseUnavailableError(lease, 0));
    const step = failingStep([...failures]);
    await expect(withActivityRetry(step.run, policy, new AbortController().signal)).rejects.toBe(failures[2]);
    expect(step.calls).toBe(3);
  });

  it('throws a failure that is not retryable at once', async () => {
    const step = failingStep([new ValidationError('bad input', [])]);
    await expect(withActivityRetry(step.run, policy, new AbortController().signal)).rejects.toBeInstanceOf(ValidationError);
    expect(step.calls).toBe(1);
  });

  it('does not retry a trigger handed back for a concurrency slot (the runner parks it)', async () => {
    const queued = new FlowQueuedError('key full', { workflowId: 'wf', key: 'k' });
    const step = failingStep([queued]);
    await expect(withActivityRetry(step.run, policy, new AbortController().signal)).rejects.toBe(queued);
    expect(step.calls).toBe(1);
  });

  it('calls nothing once the runner stops', async () => {
    const stopped = new AbortController();
    stopped.abort();
    const step = failingStep([]);
    await expect(withActivityRetry(step.run, policy, stopped.signal)).rejects.toThrow('shutting down');
    expect(step.calls).toBe(0);
  });
});

describe('OperationRuns', () => {
  /** A run that ends when `finish` is called. */
  function pendingRun() {
    let finish!: () => void;
    const run = new Promise<void>((resolve) => (finish = resolve));
    return { run, finish };
  }

  it('answers finished once the run ends, and forgets it then', async () => {
    const runs = new OperationRuns(new AbortController().signal);
    const { run, finish } = pendingRun();
    const forgotten: string[] = [];
    runs.add('op', run, () => forgotten.push('op'));
    expect(runs.has('op')).toBe(true);
    const waiting = runs.waitUntilFinished('op', 60_000);
    finish();
    await expect(waiting).resolves.toBe('finished');
    await runs.whenDone('op');
    expect(runs.has('op')).toBe(false);
    expect(runs.size).toBe(0);
    expect(forgotten).toEqual(['op']);
  });

  it('answers unknown for a run it does not hold', async () => {
    const runs = new OperationRuns(new AbortController().signal);
    await expect(runs.waitUntilFinished('other', 60_000)).resolves.toBe('unknown');
  });

  it('answers pending when the timeout, the caller’s signal or the shutdown ends the wait first', async () => {
    const shutdown = new AbortController();
    const runs = new OperationRuns(shutdown.signal);
    runs.add('op', pendingRun().run, () => undefined);
    await expect(runs.waitUntilFinished('op', 1)).resolves.toBe('pending');
    const caller = new AbortController();
    const byCaller = runs.waitUntilFinished('op', 60_000, caller.signal);
    caller.abort();
    await expect(byCaller).resolves.toBe('pending');
    const byShutdown = runs.waitUntilFinished('op', 60_000);
    shutdown.abort();
    await expect(byShutdown).resolves.toBe('pending');
    expect(runs.has('op')).toBe(true);
  });

  it('settles once every run in flight has ended', async () => {
    const runs = new OperationRuns(new AbortController().signal);
    const first = pendingRun();
    const second = pendingRun();
    runs.add('a', first.run, () => undefined);
    runs.add('b', second.run, () => undefined);
    let settled = false;
    const stopping = runs.settled(60_000).then(() => (settled = true));
    first.finish();
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    second.finish();
    await stopping;
    expect(runs.size).toBe(0);
  });
});
