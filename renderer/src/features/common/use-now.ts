import { useEffect, useState } from 'react';

/** The current time, re-read every `everyMs`: relative times ("12 s ago") and chart windows tick on their own. */
export function useNow(everyMs = 1000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(t);
  }, [everyMs]);
  return now;
}
