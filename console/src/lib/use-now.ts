/** @module The current time, refreshed every `intervalInMs`, so relative times ("in 3 minutes") stay true. */
import { useEffect, useState } from 'preact/hooks';

export function useNow(intervalInMs = 30_000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), intervalInMs);
    return () => clearInterval(timer);
  }, [intervalInMs]);
  return now;
}
