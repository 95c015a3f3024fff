/** @module Loads data for a component and re-loads when its inputs change; stale answers are dropped. */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { asProblem } from '../api/api-error';
import type { ClientProblem } from '../../../src/client';

export interface AsyncState<T> {
  data: T | undefined;
  problem: ClientProblem | undefined;
  loading: boolean;
  reload: () => void;
}

export function useAsync<T>(load: () => Promise<T>, inputs: readonly unknown[]): AsyncState<T> {
  const [state, setState] = useState<{ data?: T; problem?: ClientProblem; loading: boolean }>({ loading: true });
  const [generation, setGeneration] = useState(0);
  const latest = useRef(0);
  useEffect(() => {
    const call = ++latest.current;
    setState((previous) => ({ ...previous, loading: true }));
    load().then(
      (data) => call === latest.current && setState({ data, loading: false }),
      (error: unknown) => call === latest.current && setState({ problem: asProblem(error), loading: false }),
    );
    // The caller lists what `load` depends on, as with useEffect.
  }, [...inputs, generation]);
  const reload = useCallback(() => setGeneration((value) => value + 1), []);
  return { data: state.data, problem: state.problem, loading: state.loading, reload };
}
