/**
 * @module Follows an operation until it finishes: polls `GET /api/operations/{id}` while it is
 * notStarted or running (every `intervalInMs`), then stops.
 */
import { useEffect, useState } from 'preact/hooks';
import type { ConsoleApi } from '../api/console-api';
import { asProblem } from '../api/api-error';
import type { Operation, Problem } from '../api/types';

export function isFinished(operation: Operation | undefined): boolean {
  return operation?.status === 'succeeded' || operation?.status === 'failed';
}

export function useOperation(api: ConsoleApi, operationId: string, intervalInMs = 1000): { operation?: Operation; problem?: Problem } {
  const [state, setState] = useState<{ operation?: Operation; problem?: Problem }>({});
  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    setState({});
    const poll = async () => {
      try {
        const operation = await api.getOperation(operationId);
        if (stopped) return;
        setState({ operation });
        if (!isFinished(operation)) timer = setTimeout(poll, intervalInMs);
      } catch (error) {
        if (stopped) return;
        const problem = asProblem(error);
        setState((previous) => ({ ...previous, problem }));
        // A network blip is retried; an answer from the server (e.g. 404) is final.
        if (problem.status === 0) timer = setTimeout(poll, intervalInMs * 2);
      }
    };
    void poll();
    return () => {
      stopped = true;
      if (timer) clearTimeout(timer);
    };
  }, [api, operationId, intervalInMs]);
  return state;
}
