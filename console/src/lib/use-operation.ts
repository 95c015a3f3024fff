/**
 * @module Follows an operation until it finishes, with the client's polling loop (src/client): reads
 * `GET /api/operations/{id}` every `intervalInMs` while it is notStarted or running, then stops; a network
 * blip is read again (after twice the interval), an answer from the server (e.g. 404) is final.
 */
import { useEffect, useState } from 'preact/hooks';
import { pollOperation, type ClientProblem, type Operation } from '../../../src/client';
import type { ConsoleApi } from '../api/console-api';
import { asProblem } from '../api/api-error';

export { isFinished } from '../../../src/client';

export function useOperation(api: ConsoleApi, operationId: string, intervalInMs = 1000): { operation?: Operation; problem?: ClientProblem } {
  const [state, setState] = useState<{ operation?: Operation; problem?: ClientProblem }>({});
  useEffect(() => {
    const stop = new AbortController();
    setState({});
    const showProblem = (error: unknown) => {
      const problem = asProblem(error);
      setState((previous) => ({ ...previous, problem }));
      return problem;
    };
    pollOperation(async () => ({ operation: await api.getOperation(operationId) }), {
      firstIntervalInMs: intervalInMs,
      maxIntervalInMs: intervalInMs,
      signal: stop.signal,
      onUpdate: (operation) => setState({ operation }),
      retryAfterFailure: (error) => showProblem(error).status === 0,
    }).catch((error: unknown) => {
      if (!stop.signal.aborted) showProblem(error);
    });
    return () => stop.abort();
  }, [api, operationId, intervalInMs]);
  return state;
}
