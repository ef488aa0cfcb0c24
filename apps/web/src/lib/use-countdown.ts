import { useCallback, useEffect, useState } from 'react';

/**
 * A resend lock: `start()` disables the action for `seconds`, `remaining` drives the "(29)" label.
 * Based on a deadline rather than decrementing, so a throttled background tab still unlocks on time.
 */
export function useCountdown(seconds: number): { remaining: number; active: boolean; start: () => void } {
  const [deadline, setDeadline] = useState<number | null>(null);
  const [now, setNow] = useState(() => Date.now());

  useEffect(() => {
    if (deadline === null) return;
    const timer = window.setInterval(() => {
      const current = Date.now();
      setNow(current);
      if (current >= deadline) setDeadline(null);
    }, 250);
    return () => window.clearInterval(timer);
  }, [deadline]);

  const start = useCallback(() => {
    const current = Date.now();
    setNow(current);
    setDeadline(current + seconds * 1000);
  }, [seconds]);

  const remaining = deadline === null ? 0 : Math.max(0, Math.ceil((deadline - now) / 1000));
  return { remaining, active: remaining > 0, start };
}
