/** @module The API client the pages use, provided once by the app (tests provide their own). */
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { ConsoleApi } from './api/console-api';

export const ApiContext = createContext<ConsoleApi | undefined>(undefined);

export function useApi(): ConsoleApi {
  const api = useContext(ApiContext);
  if (!api) throw new Error('useApi needs an ApiContext provider');
  return api;
}
