import { useSyncExternalStore } from 'react';
import { readString, StorageKey, writeString } from './storage';

export type ThemeMode = 'light' | 'dark';

type Listener = () => void;
const listeners = new Set<Listener>();

function initialMode(): ThemeMode {
  const stored = readString(StorageKey.themeMode);
  if (stored === 'light' || stored === 'dark') return stored;
  // No explicit choice yet: follow the operating system instead of flashing a light page at dark-mode users.
  return window.matchMedia?.('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}

let mode: ThemeMode = initialMode();

/** Semi UI switches its whole palette on this body attribute. */
function apply(next: ThemeMode): void {
  if (next === 'dark') document.body.setAttribute('theme-mode', 'dark');
  else document.body.removeAttribute('theme-mode');
  document.documentElement.style.colorScheme = next;
}

apply(mode);

export function setThemeMode(next: ThemeMode): void {
  mode = next;
  writeString(StorageKey.themeMode, next);
  apply(next);
  for (const listener of listeners) listener();
}

function subscribe(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

const getMode = (): ThemeMode => mode;

export function useThemeMode(): [ThemeMode, (next: ThemeMode) => void] {
  return [useSyncExternalStore(subscribe, getMode, getMode), setThemeMode];
}
