import { useSyncExternalStore } from 'react';

const NARROW_SCREEN = '(max-width: 768px)';

function subscribe(onChange: () => void): () => void {
  const query = window.matchMedia?.(NARROW_SCREEN);
  query?.addEventListener('change', onChange);
  return () => query?.removeEventListener('change', onChange);
}

const isNarrow = () => window.matchMedia?.(NARROW_SCREEN).matches ?? false;

/** Phones and narrow windows: wide tables drop their fixed columns there so every column scrolls. */
export function useNarrowScreen(): boolean {
  return useSyncExternalStore(subscribe, isNarrow, () => false);
}
