import { useSyncExternalStore } from 'react';
import { isAdmin, isRoot } from '@modelgate/contract';
import { readJson, removeKey, StorageKey, writeJson } from './storage';

/** What the console keeps about the signed-in user (the login answer, refreshed from /api/user/self). */
export interface SessionUser {
  id: number;
  username: string;
  display_name?: string;
  role: number;
  status?: number;
  group?: string;
}

type Listener = () => void;
const listeners = new Set<Listener>();

function isSessionUser(value: unknown): value is SessionUser {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Record<string, unknown>;
  return typeof candidate.id === 'number' && typeof candidate.username === 'string';
}

// The snapshot must be referentially stable between changes or useSyncExternalStore re-renders forever.
let current: SessionUser | null = loadStoredUser();

function loadStoredUser(): SessionUser | null {
  const stored = readJson<unknown>(StorageKey.user);
  return isSessionUser(stored) ? { ...stored, role: Number(stored.role ?? 0) } : null;
}

function emit(): void {
  for (const listener of listeners) listener();
}

export function getSessionUser(): SessionUser | null {
  return current;
}

export function setSessionUser(user: SessionUser): void {
  current = user;
  writeJson(StorageKey.user, user);
  emit();
}

export function clearSessionUser(): void {
  if (current === null && readJson(StorageKey.user) === null) return;
  current = null;
  removeKey(StorageKey.user);
  emit();
}

function subscribe(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

// Signing in or out in another tab must be reflected here, or this tab keeps sending a stale user id.
if (typeof window !== 'undefined') {
  window.addEventListener('storage', (event) => {
    if (event.key !== StorageKey.user && event.key !== null) return;
    current = loadStoredUser();
    emit();
  });
}

export function useSessionUser(): SessionUser | null {
  return useSyncExternalStore(subscribe, getSessionUser, getSessionUser);
}

export function useSessionRoles(): { signedIn: boolean; admin: boolean; root: boolean } {
  const user = useSessionUser();
  return { signedIn: user !== null, admin: isAdmin(user?.role), root: isRoot(user?.role) };
}
