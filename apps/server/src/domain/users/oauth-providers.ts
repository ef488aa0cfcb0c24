import { request as httpRequest } from 'undici';
import { z } from 'zod';
import type { AppConfig } from '../../config/env.js';
import { AppError, badRequest } from '../../errors/app-error.js';
import type { OptionService } from '../options/option-service.js';

/** What a provider tells us about the account that signed in. */
export interface ProviderAccount {
  /** Stable id stored in the user's binding column. */
  id: string;
  /** An older id form to recognise accounts bound before (GitHub: the login name). */
  legacyId?: string;
  displayName: string;
  email: string;
  /** A name the provider suggests for a new account (OIDC preferred_username); used when free and valid. */
  preferredUsername?: string;
  /** The provider vouches that the account owns `email` (OIDC `email_verified`). */
  emailVerified?: boolean;
}

const TIMEOUT_MS = 10_000;

/**
 * One JSON call to a provider. A body that is not JSON or does not match `schema` is the
 * provider's fault (502); an unreachable provider is too.
 */
async function callProvider<T extends z.ZodType>(
  providerName: string,
  url: string,
  init: { method: 'GET' | 'POST'; headers: Record<string, string>; body?: string },
  schema: T,
): Promise<z.output<T>> {
  let payload: unknown;
  try {
    const response = await httpRequest(url, { ...init, headersTimeout: TIMEOUT_MS, bodyTimeout: TIMEOUT_MS });
    payload = await response.body.json();
  } catch (error) {
    throw new AppError('oauth:unreachable', `无法连接至 ${providerName} 服务器，请稍后重试！`, { status: 502, retryable: true, cause: error });
  }
  const parsed = schema.safeParse(payload);
  if (!parsed.success) throw new AppError('oauth:bad_answer', `${providerName} 返回值非法，请稍后重试！`, { status: 502 });
  return parsed.data;
}

const tokenAnswer = z
  .object({
    access_token: z.string().optional(),
    error: z.string().optional(),
    error_description: z.string().optional(),
    message: z.string().optional(),
  })
  .loose();

const githubUser = z.object({ id: z.number().int(), login: z.string().min(1), name: z.string().nullish(), email: z.string().nullish() }).loose();

/** Exchanges a GitHub OAuth code for the account that granted it. */
export async function fetchGitHubAccount(config: AppConfig, options: OptionService, code: string): Promise<ProviderAccount> {
  const { githubOAuthBaseUrl, githubApiBaseUrl } = config.authProviders;
  const token = await callProvider(
    'GitHub',
    `${githubOAuthBaseUrl}/login/oauth/access_token`,
    {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ client_id: options.string('GitHubClientId'), client_secret: options.raw('GitHubClientSecret'), code }),
    },
    tokenAnswer,
  );
  if (!token.access_token) {
    throw badRequest(`GitHub 授权失败：${token.error_description || token.error || '无效的授权码'}`, 'oauth:invalid_code');
  }
  const user = await callProvider(
    'GitHub',
    `${githubApiBaseUrl}/user`,
    {
      method: 'GET',
      headers: { authorization: `Bearer ${token.access_token}`, accept: 'application/vnd.github+json', 'user-agent': 'modelgate' },
    },
    githubUser,
  );
  return { id: String(user.id), legacyId: user.login, displayName: user.name || 'GitHub User', email: user.email ?? '' };
}

const linuxdoUser = z.object({ id: z.number().int().positive(), username: z.string().optional(), name: z.string().nullish() }).loose();

/** Exchanges a LinuxDO Connect code for the account that granted it. */
export async function fetchLinuxDoAccount(config: AppConfig, options: OptionService, code: string, redirectUri: string): Promise<ProviderAccount> {
  const base = config.authProviders.linuxdoBaseUrl;
  const credentials = Buffer.from(`${options.string('LinuxDOClientId')}:${options.raw('LinuxDOClientSecret')}`).toString('base64');
  const token = await callProvider(
    'Linux DO',
    `${base}/oauth2/token`,
    {
      method: 'POST',
      headers: {
        authorization: `Basic ${credentials}`,
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
      },
      body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirectUri }).toString(),
    },
    tokenAnswer,
  );
  if (!token.access_token) {
    throw badRequest(`Linux DO 授权失败：${token.error_description || token.message || token.error || '无效的授权码'}`, 'oauth:invalid_code');
  }
  const user = await callProvider(
    'Linux DO',
    `${base}/api/user`,
    { method: 'GET', headers: { authorization: `Bearer ${token.access_token}`, accept: 'application/json' } },
    linuxdoUser,
  );
  return { id: String(user.id), displayName: user.name || user.username || 'Linux DO User', email: '' };
}

const wechatAnswer = z.object({ success: z.boolean(), message: z.string().optional().default(''), data: z.string().optional().default('') }).loose();

/**
 * Asks the configured WeChat server which account a login code belongs to (the code the user
 * got from the official account, valid a few minutes).
 */
export async function fetchWeChatAccount(options: OptionService, code: string): Promise<ProviderAccount> {
  const server = options.string('WeChatServerAddress');
  if (server === '') throw new AppError('oauth:wechat_not_configured', '微信服务器地址未配置，请联系管理员', { status: 503 });
  const answer = await callProvider(
    '微信',
    `${server}/api/wechat/user?code=${encodeURIComponent(code)}`,
    { method: 'GET', headers: { authorization: options.raw('WeChatServerToken') } },
    wechatAnswer,
  );
  if (!answer.success) throw badRequest(answer.message || '验证码错误或已过期', 'oauth:wechat_refused');
  if (answer.data === '') throw badRequest('验证码错误或已过期', 'oauth:wechat_code_invalid');
  return { id: answer.data, displayName: 'WeChat User', email: '' };
}
