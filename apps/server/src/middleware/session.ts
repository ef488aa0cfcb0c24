import { createHash, randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SessionRepository, SessionRow } from '../domain/users/session-repository.js';

export const SESSION_COOKIE = 'session';
export const SESSION_MAX_AGE_SECONDS = 30 * 24 * 3600;
/** last_seen_at is written at most this often per session, so browsing costs no write per call. */
const TOUCH_INTERVAL_SECONDS = 60;
const USER_AGENT_MAX_LENGTH = 255;

/**
 * A session is a row in `sessions`; the cookie carries a random secret whose SHA-256 finds the row.
 * The database never holds the secret, so a leaked table signs nobody in, and deleting the row
 * ends the session on every node at once. The cookie is still signed (SESSION_SECRET) so forged
 * values are turned away without a query.
 */
const hashOf = (secret: string) => createHash('sha256').update(secret).digest('hex');
const nowSeconds = () => Math.floor(Date.now() / 1000);

/** Starts a session for the user on this browser (and drops expired sessions of everyone). */
export async function startSession(request: FastifyRequest, reply: FastifyReply, sessions: SessionRepository, userId: number): Promise<number> {
  const secret = randomBytes(32).toString('base64url');
  const now = nowSeconds();
  await sessions.purgeExpired(now);
  const id = await sessions.create({
    tokenHash: hashOf(secret),
    userId,
    ip: request.ip,
    userAgent: (request.headers['user-agent'] ?? '').slice(0, USER_AGENT_MAX_LENGTH),
    now,
    expiresAt: now + SESSION_MAX_AGE_SECONDS,
  });
  reply.setCookie(SESSION_COOKIE, secret, {
    signed: true,
    httpOnly: true,
    sameSite: 'strict',
    path: '/',
    maxAge: SESSION_MAX_AGE_SECONDS,
    secure: request.protocol === 'https',
  });
  return id;
}

export function clearSessionCookie(reply: FastifyReply): void {
  reply.clearCookie(SESSION_COOKIE, { path: '/' });
}

/** Ends this browser's session, if it has one, and clears its cookie. */
export async function endSession(request: FastifyRequest, reply: FastifyReply, sessions: SessionRepository): Promise<void> {
  const secret = sessionSecretOf(request);
  if (secret !== undefined) await sessions.revokeByHash(hashOf(secret));
  clearSessionCookie(reply);
}

/** The secret of a validly signed session cookie, or undefined. */
function sessionSecretOf(request: FastifyRequest): string | undefined {
  const raw = request.cookies[SESSION_COOKIE];
  if (!raw) return undefined;
  const unsigned = request.unsignCookie(raw);
  if (!unsigned.valid || !unsigned.value) return undefined;
  return unsigned.value;
}

/** The live session this request's cookie names, or undefined; notes when it was last used. */
export async function findSession(request: FastifyRequest, sessions: SessionRepository): Promise<SessionRow | undefined> {
  const secret = sessionSecretOf(request);
  if (secret === undefined) return undefined;
  const now = nowSeconds();
  const session = await sessions.findLive(hashOf(secret), now);
  if (session && now - Number(session.last_seen_at) >= TOUCH_INTERVAL_SECONDS) {
    await sessions.touch(Number(session.id), now, request.ip);
  }
  return session;
}
