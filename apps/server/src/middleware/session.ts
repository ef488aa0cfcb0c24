import type { FastifyReply, FastifyRequest } from 'fastify';

export const SESSION_COOKIE = 'session';
const SESSION_MAX_AGE_SECONDS = 30 * 24 * 3600;

/**
 * Sessions are signed cookies (HMAC via @fastify/cookie) holding the user id and issue time, so
 * any node sharing SESSION_SECRET accepts them. Whether the user may still act is checked against
 * the database on every request, so a ban or deletion ends the session at once.
 */
export function startSession(request: FastifyRequest, reply: FastifyReply, userId: number): void {
  const issuedAt = Math.floor(Date.now() / 1000);
  reply.setCookie(SESSION_COOKIE, `${userId}.${issuedAt}`, {
    signed: true,
    httpOnly: true,
    sameSite: 'strict',
    path: '/',
    maxAge: SESSION_MAX_AGE_SECONDS,
    secure: request.protocol === 'https',
  });
}

export function endSession(reply: FastifyReply): void {
  reply.clearCookie(SESSION_COOKIE, { path: '/' });
}

/** The user id of a valid, unexpired session cookie, or undefined. */
export function sessionUserId(request: FastifyRequest): number | undefined {
  const raw = request.cookies[SESSION_COOKIE];
  if (!raw) return undefined;
  const unsigned = request.unsignCookie(raw);
  if (!unsigned.valid || unsigned.value === null) return undefined;
  const [idText, issuedText] = unsigned.value.split('.');
  const id = Number(idText);
  const issuedAt = Number(issuedText);
  if (!Number.isSafeInteger(id) || id <= 0 || !Number.isFinite(issuedAt)) return undefined;
  if (Date.now() / 1000 - issuedAt > SESSION_MAX_AGE_SECONDS) return undefined;
  return id;
}
