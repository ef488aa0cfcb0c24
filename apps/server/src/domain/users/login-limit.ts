import { createHash } from 'node:crypto';
import { AppError } from '../../errors/app-error.js';
import type { RateLimitStore } from '../../lib/rate-limit.js';
import { usernameKey } from '../../lib/username.js';

export const LOGIN_FAILURE_LIMIT = 10;
export const LOGIN_FAILURE_WINDOW_SECONDS = 15 * 60;
export const LOGIN_LOCK_SECONDS = 15 * 60;

export interface LoginAttempt {
  /** The password was wrong: the attempt stays counted, and the limit's last one locks the account. */
  failed(): Promise<void>;
  /** The password was right: this attempt is taken back, the other failures in the window stay. */
  succeeded(): Promise<void>;
}

// A hash keeps keys short and free of whatever bytes the name holds.
const keysOf = (account: string) => {
  const name = createHash('sha256').update(usernameKey(account)).digest('hex').slice(0, 32);
  return { failures: `login-fail:${name}`, lock: `login-lock:${name}` };
};

/** Seconds the account's lock has left (0: not locked), for status answers. */
export const loginLockedFor = (store: RateLimitStore, account: string): Promise<number> => store.lockedFor(keysOf(account).lock);

const lockedError = (seconds: number) =>
  new AppError('auth:login_locked', `登录失败次数过多，请 ${Math.max(1, Math.ceil(seconds / 60))} 分钟后再试`, { status: 429 });

/**
 * The per-account password sign-in limit: LOGIN_FAILURE_LIMIT failures within
 * LOGIN_FAILURE_WINDOW_SECONDS lock the account's password sign-in for LOGIN_LOCK_SECONDS, for
 * every client and (with Redis) on every node. A locked account refuses even the right password,
 * or a guesser would learn it from the one answer that differs.
 *
 * `account` is the username of the account the login named (its username or email), or the typed
 * name when none matched, so unknown names lock the same way and the lock tells nothing about
 * which accounts exist. The attempt is counted before the password is checked, so concurrent
 * guesses cannot all slip in under the limit; a right password takes back only its own count, so
 * signing in does not wipe the failures someone else piled up.
 */
export async function beginLoginAttempt(store: RateLimitStore, account: string): Promise<LoginAttempt> {
  const { failures, lock } = keysOf(account);

  const lockedSeconds = await store.lockedFor(lock);
  if (lockedSeconds > 0) throw lockedError(lockedSeconds);
  const count = await store.hit(failures, LOGIN_FAILURE_WINDOW_SECONDS);
  if (count > LOGIN_FAILURE_LIMIT) {
    await store.lock(lock, LOGIN_LOCK_SECONDS);
    throw lockedError(await store.lockedFor(lock));
  }
  return {
    failed: async () => {
      if (count >= LOGIN_FAILURE_LIMIT) await store.lock(lock, LOGIN_LOCK_SECONDS);
    },
    succeeded: () => store.unhit(failures),
  };
}
