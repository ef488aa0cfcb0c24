import type { FastifyRequest } from 'fastify';
import { request as httpRequest } from 'undici';
import { z } from 'zod';
import type { AppContext } from '../../app-context.js';
import { AppError, badRequest, forbidden } from '../../errors/app-error.js';

const siteVerifyAnswer = z.object({ success: z.boolean() }).loose();

const TIMEOUT_MS = 10_000;

/**
 * Asks the Turnstile service whether `token` was issued to a human for our site key.
 * Answers false for a rejected token; throws when the service cannot be reached.
 */
export async function verifyTurnstileToken(verifyUrl: string, input: { secret: string; token: string; remoteIp: string }): Promise<boolean> {
  const form = new URLSearchParams({ secret: input.secret, response: input.token, remoteip: input.remoteIp });
  let answer: unknown;
  try {
    const response = await httpRequest(verifyUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form.toString(),
      headersTimeout: TIMEOUT_MS,
      bodyTimeout: TIMEOUT_MS,
    });
    answer = await response.body.json();
  } catch (error) {
    throw new AppError('turnstile:unreachable', 'Turnstile 校验服务无法访问，请稍后重试', { status: 502, cause: error });
  }
  const parsed = siteVerifyAnswer.safeParse(answer);
  return parsed.success && parsed.data.success;
}

/**
 * The bot check in front of sign-in, registration and mail-sending calls: when
 * TurnstileCheckEnabled, `?turnstile=` must carry a token the service accepts.
 */
export async function enforceTurnstile(context: AppContext, request: FastifyRequest): Promise<void> {
  const { options } = context;
  if (!options.bool('TurnstileCheckEnabled')) return;
  const query = request.query as Record<string, unknown> | undefined;
  const token = typeof query?.turnstile === 'string' ? query.turnstile.trim() : '';
  if (token === '') throw badRequest('Turnstile token 为空', 'turnstile:missing');
  const accepted = await verifyTurnstileToken(context.config.authProviders.turnstileVerifyUrl, {
    secret: options.raw('TurnstileSecretKey'),
    token,
    remoteIp: request.ip,
  });
  if (!accepted) throw forbidden('Turnstile 校验失败，请刷新重试！', 'turnstile:failed');
}
