import { USERNAME_MAX_LENGTH, UserStatus } from '@modelgate/contract';
import type { OidcDiscovery } from '@modelgate/contract';
import { z } from 'zod';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app-context.js';
import { badRequest, forbidden } from '../../errors/app-error.js';
import { fetchGitHubAccount, fetchLinuxDoAccount, fetchWeChatAccount, type ProviderAccount } from '../../domain/users/oauth-providers.js';
import { fetchOidcAccount, fetchOidcDiscovery } from '../../domain/users/oidc-client.js';
import { checkTelegramLogin } from '../../domain/users/telegram-auth.js';
import { createUser, nextProviderUsername } from '../../domain/users/user-registration.js';
import { hasForbiddenCharacters } from '../../lib/username.js';
import type { BindingColumn, UserRow } from '../../domain/users/user-repository.js';
import { randomAlphanumeric } from '../../domain/users/user-service.js';
import { consumeEmailVerificationCode } from '../../domain/verification/email-flows.js';
import { assertEmailAllowed, normaliseEmail } from '../../domain/verification/email-rules.js';
import { authGuard, currentUser } from '../../middleware/auth.js';
import { findSession } from '../../middleware/session.js';
import { parseInput } from '../../lib/parse-input.js';
import { ok } from '../envelope.js';
import { notAudited } from '../audit-coverage.js';
import { completeLogin, criticalRateLimit, requestOrigin } from './auth.js';

const STATE_COOKIE = 'oauth_state';
const STATE_MAX_AGE_SECONDS = 10 * 60;

export const oidcDiscoveryBody = z.object({
  well_known: z.string({ error: '请填写 Well-Known URL' }).trim().min(1, '请填写 Well-Known URL'),
});

interface Provider {
  label: string;
  column: BindingColumn;
  usernamePrefix: string;
  enabled(): boolean;
  disabledMessage: string;
  boundMessage: string;
  /** Set where an unbound account signs into the user with its verified email (new-api's OIDC); the message refuses one bound to another account. */
  emailBoundMessage?: string;
}

const queryOf = (request: FastifyRequest): Record<string, string> => {
  const fields: Record<string, string> = {};
  for (const [key, value] of Object.entries((request.query ?? {}) as Record<string, unknown>)) {
    const first = Array.isArray(value) ? value[0] : value;
    if (typeof first === 'string') fields[key] = first;
  }
  return fields;
};

/**
 * new-api's newest console POSTs the bind forms as JSON ({email, code}, {code}) where older ones
 * sent a GET query: both are read, the body's string fields over the query's.
 */
const bindFieldsOf = (request: FastifyRequest): Record<string, string> => {
  const fields = queryOf(request);
  const body = request.body;
  if (body !== null && typeof body === 'object' && !Array.isArray(body)) {
    for (const [key, value] of Object.entries(body as Record<string, unknown>)) if (typeof value === 'string') fields[key] = value;
  }
  return fields;
};

/**
 * Third-party sign-in and account binding: GitHub, LinuxDO and OpenID Connect (OAuth with an anti-forgery state),
 * WeChat (codes checked by the configured WeChat server), Telegram (signed widget data), and
 * email binding with a mailed code.
 */
export function oauthRoutes(app: FastifyInstance, context: AppContext): void {
  const { options, users, config } = context;
  const repository = users.repository;
  const critical = criticalRateLimit(context);
  const signedIn = authGuard(repository, 'user');
  const rootOnly = authGuard(repository, 'root');

  const github: Provider = {
    label: 'GitHub',
    column: 'github_id',
    usernamePrefix: 'github',
    enabled: () => options.bool('GitHubOAuthEnabled'),
    disabledMessage: '管理员未开启通过 GitHub 登录以及注册',
    boundMessage: '该 GitHub 账户已被绑定',
  };
  const linuxdo: Provider = {
    label: 'Linux DO',
    column: 'linux_do_id',
    usernamePrefix: 'linuxdo',
    enabled: () => options.bool('LinuxDOOAuthEnabled'),
    disabledMessage: '管理员未开启通过 Linux DO 登录以及注册',
    boundMessage: '该 Linux DO 账户已被绑定',
  };
  const wechat: Provider = {
    label: '微信',
    column: 'wechat_id',
    usernamePrefix: 'wechat',
    enabled: () => options.bool('WeChatAuthEnabled'),
    disabledMessage: '管理员未开启通过微信登录以及注册',
    boundMessage: '该微信账号已被绑定',
  };
  const oidc: Provider = {
    label: 'OIDC',
    column: 'oidc_id',
    usernamePrefix: 'oidc',
    enabled: () => options.bool('oidc.enabled'),
    disabledMessage: '管理员未开启通过 OIDC 登录以及注册',
    boundMessage: '该 OIDC 账户已被绑定',
    emailBoundMessage: '该邮箱对应的账户已绑定其他 OIDC 账户',
  };

  /** The provider's suggested name when it passes the sign-up rules and is free, else `<prefix>_<next id>`. */
  async function newAccountUsername(provider: Provider, account: ProviderAccount): Promise<string> {
    const preferred = account.preferredUsername ?? '';
    const acceptable =
      preferred !== '' &&
      preferred.length <= USERNAME_MAX_LENGTH &&
      // An @ would make the name read as an email address at the password login.
      !preferred.includes('@') &&
      !hasForbiddenCharacters(preferred) &&
      !(await repository.usernameTaken(preferred));
    return acceptable ? preferred : nextProviderUsername(context, provider.usernamePrefix);
  }

  /** The user bound to this account; a GitHub binding made under the old login-name form is moved to the id. */
  async function findBound(provider: Provider, account: ProviderAccount): Promise<UserRow | undefined> {
    const bound = await repository.findByBinding(provider.column, account.id);
    if (bound || !account.legacyId) return bound;
    const legacy = await repository.findByBinding(provider.column, account.legacyId);
    if (legacy) await repository.update(Number(legacy.id), { [provider.column]: account.id });
    return legacy;
  }

  /**
   * new-api signs an unbound OIDC account into the user holding the same email, binding it. Only
   * when the provider vouches for the address: else anyone who can type that address at the
   * provider would take the user over.
   */
  async function linkByVerifiedEmail(provider: Provider, account: ProviderAccount): Promise<UserRow | undefined> {
    if (provider.emailBoundMessage === undefined || !account.emailVerified || account.email === '') return undefined;
    const owner = await repository.findLiveByEmail(account.email.toLowerCase());
    if (!owner) return undefined;
    if (owner[provider.column] !== '') throw badRequest(provider.emailBoundMessage, 'oauth:email_bound_elsewhere');
    await repository.update(Number(owner.id), { [provider.column]: account.id });
    return { ...owner, [provider.column]: account.id };
  }

  async function signIn(request: FastifyRequest, reply: FastifyReply, provider: Provider, account: ProviderAccount, affCode = '') {
    const existing = await findBound(provider, account);
    if (existing) {
      if (existing.deleted_at !== null) throw forbidden('用户已注销', 'auth:user_deleted');
      return completeLogin(context, request, reply, existing);
    }
    const linked = await linkByVerifiedEmail(provider, account);
    if (linked) return completeLogin(context, request, reply, linked);
    if (!options.bool('RegisterEnabled')) throw forbidden('管理员关闭了新用户注册', 'auth:register_disabled');
    const email = account.email !== '' && !(await repository.emailTaken(account.email.toLowerCase())) ? account.email.toLowerCase() : '';
    const created = await createUser(context, {
      username: await newAccountUsername(provider, account),
      password: '',
      displayName: account.displayName,
      email,
      inviterAffCode: affCode,
      bindings: { [provider.column]: account.id },
    });
    return completeLogin(context, request, reply, created);
  }

  async function bind(user: UserRow, provider: Provider, account: ProviderAccount) {
    const holder = await findBound(provider, account);
    if (holder && Number(holder.id) !== Number(user.id)) throw badRequest(provider.boundMessage, 'oauth:already_bound');
    await repository.update(Number(user.id), { [provider.column]: account.id });
  }

  /** The signed-in, active user of this browser, if any: an OAuth callback then binds instead of signing in. */
  async function sessionUser(request: FastifyRequest): Promise<UserRow | undefined> {
    const session = await findSession(request, repository.sessions);
    if (session === undefined) return undefined;
    const user = await repository.findById(Number(session.user_id));
    return user && user.deleted_at === null && Number(user.status) === UserStatus.Enabled ? user : undefined;
  }

  /** Checks `state` against the cookie set by /api/oauth/state (used once) and returns the aff code saved with it. */
  function takeState(request: FastifyRequest, reply: FastifyReply, state: string): string {
    const raw = request.cookies[STATE_COOKIE];
    reply.clearCookie(STATE_COOKIE, { path: '/api/oauth' });
    const unsigned = raw ? request.unsignCookie(raw) : undefined;
    const [saved, aff = ''] = unsigned?.valid && unsigned.value ? unsigned.value.split('|') : [];
    if (state === '' || !saved || saved !== state) throw forbidden('state is empty or not same', 'oauth:state_mismatch');
    return decodeURIComponent(aff);
  }

  app.get('/api/oauth/state', { preHandler: critical }, async (request, reply) => {
    const state = randomAlphanumeric(12);
    const aff = queryOf(request).aff ?? '';
    reply.setCookie(STATE_COOKIE, `${state}|${encodeURIComponent(aff.slice(0, 32))}`, {
      signed: true,
      httpOnly: true,
      // Lax: the console page that finishes the flow is reached by a redirect from the provider.
      sameSite: 'lax',
      path: '/api/oauth',
      maxAge: STATE_MAX_AGE_SECONDS,
      secure: request.protocol === 'https',
    });
    return ok(state);
  });

  const callback =
    (provider: Provider, fetchAccount: (code: string, request: FastifyRequest) => Promise<ProviderAccount>) =>
    async (request: FastifyRequest, reply: FastifyReply) => {
      const query = queryOf(request);
      if (query.error) throw badRequest(query.error_description || query.error, 'oauth:provider_error');
      const aff = takeState(request, reply, query.state ?? '');
      if (!provider.enabled()) throw forbidden(provider.disabledMessage, 'oauth:disabled');
      if (!query.code) throw badRequest('无效的参数', 'request:invalid_parameter');
      const account = await fetchAccount(query.code, request);
      const user = await sessionUser(request);
      if (user) {
        await bind(user, provider, account);
        // new-api's consoles recognise a binding by this exact message.
        return ok(undefined, 'bind');
      }
      return signIn(request, reply, provider, account, aff);
    };

  app.get(
    '/api/oauth/github',
    { preHandler: critical },
    callback(github, (code) => fetchGitHubAccount(config, options, code)),
  );
  app.get(
    '/api/oauth/linuxdo',
    { preHandler: critical },
    callback(linuxdo, (code, request) =>
      fetchLinuxDoAccount(config, options, code, `${options.string('ServerAddress') || requestOrigin(request)}/oauth/linuxdo`),
    ),
  );

  // new-api's route: the redirect_uri registered at the provider is <ServerAddress>/oauth/oidc.
  app.get(
    '/api/oauth/oidc',
    { preHandler: critical },
    callback(oidc, (code, request) => fetchOidcAccount(options, code, `${options.string('ServerAddress') || requestOrigin(request)}/oauth/oidc`)),
  );

  // The system tab's "fetch" button: the provider's discovery document read here, not in the
  // browser, which most providers' CORS rules would stop.
  app.post('/api/oauth/oidc/discovery', { preHandler: [critical, rootOnly], ...notAudited('reads a discovery document; saves nothing') }, async (request) => {
    const { well_known: wellKnown } = parseInput(oidcDiscoveryBody, request.body);
    const document = await fetchOidcDiscovery(wellKnown, { fresh: true });
    return ok<OidcDiscovery>({
      issuer: document.issuer,
      authorization_endpoint: document.authorization_endpoint,
      token_endpoint: document.token_endpoint,
      user_info_endpoint: document.userinfo_endpoint ?? '',
      jwks_uri: document.jwks_uri ?? '',
    });
  });

  app.get('/api/oauth/wechat', { preHandler: critical }, async (request, reply) => {
    if (!wechat.enabled()) throw forbidden(wechat.disabledMessage, 'oauth:disabled');
    const code = queryOf(request).code ?? '';
    if (code === '') throw badRequest('无效的参数', 'request:invalid_parameter');
    return signIn(request, reply, wechat, await fetchWeChatAccount(options, code));
  });

  const wechatBind = async (request: FastifyRequest) => {
    if (!wechat.enabled()) throw forbidden(wechat.disabledMessage, 'oauth:disabled');
    const code = bindFieldsOf(request).code ?? '';
    if (code === '') throw badRequest('无效的参数', 'request:invalid_parameter');
    await bind(currentUser(request), wechat, await fetchWeChatAccount(options, code));
    return ok(undefined, '微信账户绑定成功！');
  };
  app.get('/api/oauth/wechat/bind', { preHandler: [critical, signedIn] }, wechatBind);
  app.post('/api/oauth/wechat/bind', { preHandler: [critical, signedIn] }, wechatBind);

  const telegramAccount = (request: FastifyRequest): string => {
    if (!options.bool('TelegramOAuthEnabled')) throw forbidden('管理员未开启通过 Telegram 登录以及注册', 'oauth:disabled');
    const check = checkTelegramLogin(queryOf(request), options.raw('TelegramBotToken'));
    if (check.ok) return check.telegramId;
    if (check.reason === 'stale') throw badRequest('Telegram 登录信息已过期，请重新授权', 'oauth:telegram_stale');
    if (check.reason === 'missing') throw badRequest('无效的参数', 'request:invalid_parameter');
    throw badRequest('无效的请求', 'oauth:telegram_forged');
  };

  // Telegram sign-in only finds accounts that bound Telegram before (as in new-api).
  app.get('/api/oauth/telegram/login', { preHandler: critical }, async (request, reply) => {
    const telegramId = telegramAccount(request);
    const user = await repository.findByBinding('telegram_id', telegramId);
    if (!user) throw badRequest('该 Telegram 账户未绑定', 'oauth:telegram_not_bound');
    if (user.deleted_at !== null) throw forbidden('用户已注销', 'auth:user_deleted');
    return completeLogin(context, request, reply, user);
  });

  app.get('/api/oauth/telegram/bind', { preHandler: [critical, signedIn] }, async (request) => {
    const telegramId = telegramAccount(request);
    const user = currentUser(request);
    const holder = await repository.findByBinding('telegram_id', telegramId);
    if (holder && Number(holder.id) !== Number(user.id)) throw badRequest('该 Telegram 账户已被绑定', 'oauth:already_bound');
    await repository.update(Number(user.id), { telegram_id: telegramId });
    return ok(undefined, 'Telegram 账户绑定成功！');
  });

  const emailBind = async (request: FastifyRequest) => {
    const query = bindFieldsOf(request);
    const email = normaliseEmail(query.email);
    const code = (query.code ?? '').trim();
    if (code === '') throw badRequest('请输入邮箱验证码！', 'verification:code_missing');
    const user = currentUser(request);
    assertEmailAllowed(options, email);
    if (await repository.emailTaken(email, Number(user.id))) throw badRequest('邮箱地址已被占用', 'email:taken');
    if (!(await consumeEmailVerificationCode(context, email, code))) throw badRequest('验证码错误或已过期', 'verification:code_invalid');
    await repository.update(Number(user.id), { email });
    return ok(undefined, '邮箱账户绑定成功！');
  };
  app.get('/api/oauth/email/bind', { preHandler: [critical, signedIn] }, emailBind);
  app.post('/api/oauth/email/bind', { preHandler: [critical, signedIn] }, emailBind);
}
