import {
  loginTwoFactorRequiredSchema,
  manageResultSchema,
  oidcDiscoverySchema,
  pageSchema,
  paymentFieldsSchema,
  paymentFormExtrasSchema,
  publicUserSchema,
  setupStatusSchema,
  signedInUserSchema,
  siteStatusSchema,
  topUpInfoSchema,
  topUpOrderSchema,
  uptimeGroupSchema,
  usableGroupsSchema,
  userSessionSchema,
  verifyResultSchema,
  verifyStatusSchema,
} from '@modelgate/contract';
import { z } from 'zod';
import { updateSchema as userSettingBody } from '../../domain/users/user-setting.js';
import { loginBody, registerBody, resetBody, sessionId } from '../api/auth.js';
import { oidcDiscoveryBody } from '../api/oauth.js';
import { verifyBody } from '../api/verify.js';
import { adminUpdateBody, affTransferBody, bindingParams, createBody as createUserBody, manageBody, selfUpdateBody, userId } from '../api/users.js';
import { completeTopUpBody, payBody, quoteBody, redeemBody } from '../api/wallet.js';
import { ADMIN_ROUTE_DOCS } from './route-docs-admin.js';
import { SECURITY_ROUTE_DOCS } from './route-docs-security.js';
import { PASSKEY_ROUTE_DOCS } from './route-docs-passkeys.js';
import type { RouteDocs } from './route-doc-types.js';
import { pagingQuery } from './paging-query.js';

export type { AuthLevel, RouteDoc, RouteDocs } from './route-doc-types.js';

const topUpQuery = pagingQuery.extend({ keyword: z.string().optional().describe('Part of the trade number.') });
const emailQuery = z.object({ email: z.string().describe('The address to mail.') });
const userSearchQuery = pagingQuery.extend({ keyword: z.string().optional(), group: z.string().optional() });
const oauthCallbackQuery = z.object({
  code: z.string().describe("The provider's authorisation code."),
  state: z.string().describe('The state from GET /api/oauth/state.'),
});
const userIdParams = z.object({ id: userId });
const sessionIdParams = z.object({ id: sessionId });
const userPage = pageSchema(publicUserSchema);
/** A sign-in answers the user; a callback that bound an account to the signed-in one answers message "bind" and no data. */
const signedIn = signedInUserSchema;

const ACCOUNT_ROUTE_DOCS: RouteDocs = {
  'GET /api/openapi.json': { summary: 'This OpenAPI 3.1 description', auth: 'public', description: 'Not wrapped in the envelope: the document itself.' },
  'GET /api/status': { summary: 'Site status and public settings the console loads first', auth: 'public', data: siteStatusSchema },
  'GET /api/setup': { summary: 'Whether first-run setup is done', auth: 'public', data: setupStatusSchema },
  'POST /api/setup': { summary: 'First-run setup (already done: answers success:false)', auth: 'public' },
  'GET /api/notice': { summary: 'The notice (markdown)', auth: 'public', data: z.string() },
  'GET /api/about': { summary: 'The about page (markdown or HTML)', auth: 'public', data: z.string() },
  'GET /api/home_page_content': { summary: 'The home page content', auth: 'public', data: z.string() },
  'GET /api/models': { summary: 'Models by channel type, for the console', auth: 'user' },

  'POST /api/user/login': {
    summary: 'Sign in; sets the session cookie, or (the account has 2FA) answers require_2fa and waits for POST /api/user/login/2fa',
    auth: 'public',
    body: loginBody,
    data: z.union([signedIn, loginTwoFactorRequiredSchema]),
  },
  'GET /api/user/logout': { summary: 'Sign out; ends the session', auth: 'public' },
  'POST /api/user/register': { summary: 'Register an account', auth: 'public', body: registerBody },
  'GET /api/verification': { summary: 'Mail an email verification code', auth: 'public', query: emailQuery },
  'GET /api/reset_password': { summary: 'Mail a password reset link', auth: 'public', query: emailQuery },
  'POST /api/user/reset': { summary: 'Reset a password with the mailed token; answers the new password', auth: 'public', body: resetBody, data: z.string() },
  'GET /api/user/self': { summary: 'The signed-in user', auth: 'user', data: publicUserSchema },
  'PUT /api/user/self': { summary: "Update the signed-in user's name, display name or password", auth: 'user', body: selfUpdateBody },
  'DELETE /api/user/self': { summary: 'Delete the signed-in account (not the root user)', auth: 'user' },
  'GET /api/user/self/sessions': { summary: "The signed-in user's sessions", auth: 'user', data: z.array(userSessionSchema) },
  'DELETE /api/user/self/sessions/:id': { summary: "End one of the signed-in user's sessions", auth: 'user', params: sessionIdParams },
  'GET /api/verify/status': { summary: 'Whether this session is freshly re-verified, and how the user can verify', auth: 'user', data: verifyStatusSchema },
  'POST /api/verify': {
    summary: 'Re-verify with a 2FA code, a passkey (after its verify flow) or the password (when the user has neither)',
    auth: 'user',
    body: verifyBody,
    data: verifyResultSchema,
  },
  'GET /api/user/groups': {
    summary: 'Groups anyone may give a token (plus the caller’s own group when signed in), with their ratios',
    auth: 'public',
    data: usableGroupsSchema,
  },
  'GET /api/uptime/status': {
    summary: 'Uptime Kuma groups for new-api’s dashboard (none: modelgate keeps no monitor)',
    auth: 'public',
    data: z.array(uptimeGroupSchema),
  },
  'GET /api/user/topup/info': { summary: 'What the top-up page offers: Epay methods, minimum', auth: 'user', data: topUpInfoSchema },
  'GET /api/user/topup/self': {
    summary: 'Own online top-up orders, newest first',
    auth: 'user',
    query: topUpQuery,
    paged: true,
    data: pageSchema(topUpOrderSchema),
  },
  'POST /api/user/topup/complete': { summary: 'Credit a pending online top-up order by hand (补单)', auth: 'admin', body: completeTopUpBody },
  'GET /api/user/topup': {
    summary: 'Every online top-up order, newest first',
    auth: 'admin',
    query: topUpQuery,
    paged: true,
    data: pageSchema(topUpOrderSchema),
  },
  'GET /api/subscription/plans': { summary: 'Subscription plans: not offered, always refused', auth: 'user' },
  'GET /api/subscription/self': { summary: 'Own subscriptions: not offered, always refused', auth: 'user' },
  'GET /api/subscription/admin/plans': { summary: 'Subscription plans (admin): not offered, always refused', auth: 'admin' },
  'POST /api/subscription/admin/users/batch_active_subscriptions': { summary: 'Users’ active subscriptions: not offered, always refused', auth: 'admin' },
  'GET /api/prefill_group/': { summary: 'Prefill groups: not offered, always refused', auth: 'admin' },
  'POST /api/prefill_group/': { summary: 'Create a prefill group: not offered, always refused', auth: 'admin' },
  'PUT /api/prefill_group/': { summary: 'Update a prefill group: not offered, always refused', auth: 'admin' },
  'DELETE /api/prefill_group/:id': { summary: 'Delete a prefill group: not offered, always refused', auth: 'admin' },
  'GET /api/custom-oauth-provider/': { summary: 'Custom OAuth providers (none: modelgate has no such providers)', auth: 'root', data: z.array(z.never()) },
  'GET /api/custom-oauth-provider/:id': { summary: 'A custom OAuth provider: not offered, always refused', auth: 'root' },
  'POST /api/custom-oauth-provider/': { summary: 'Create a custom OAuth provider: not offered, always refused', auth: 'root' },
  'PUT /api/custom-oauth-provider/:id': { summary: 'Update a custom OAuth provider: not offered, always refused', auth: 'root' },
  'DELETE /api/custom-oauth-provider/:id': { summary: 'Delete a custom OAuth provider: not offered, always refused', auth: 'root' },
  'POST /api/custom-oauth-provider/discovery': { summary: 'Discover a custom OAuth provider: not offered, always refused', auth: 'root' },
  'GET /api/ratio_sync/channels': { summary: 'Channels to sync prices from: not offered, always refused', auth: 'root' },
  'POST /api/ratio_sync/fetch': { summary: 'Fetch upstream prices: not offered, always refused', auth: 'root' },
  'GET /api/performance/stats': { summary: 'Performance statistics: not offered, always refused', auth: 'root' },
  'GET /api/option/channel_affinity_cache': { summary: 'Channel affinity cache: not offered, always refused', auth: 'root' },
  'DELETE /api/option/channel_affinity_cache': { summary: 'Clear the channel affinity cache: not offered, always refused', auth: 'root' },
  'GET /api/user/self/groups': { summary: 'Groups the user may give a token, with their ratios', auth: 'user', data: usableGroupsSchema },
  'GET /api/user/token': { summary: 'Generate a new system access token (for the Authorization header)', auth: 'user', data: z.string() },
  'GET /api/user/aff': { summary: "The user's invitation code", auth: 'user', data: z.string() },
  'POST /api/user/aff_transfer': { summary: 'Move invitation rewards into the balance', auth: 'user', body: affTransferBody },
  'GET /api/user/models': { summary: 'Models the user may call', auth: 'user', data: z.array(z.string()) },
  'PUT /api/user/setting': { summary: 'Notification and relay settings of the signed-in user', auth: 'user', body: userSettingBody },
  'POST /api/user/topup': { summary: 'Redeem a code into the balance', auth: 'user', body: redeemBody, data: z.number().describe('The quota added.') },
  'POST /api/user/amount': {
    summary: 'The price of a top-up amount',
    auth: 'user',
    body: quoteBody,
    data: z.string().describe('The money to pay, two decimals ("73.00").'),
  },
  'POST /api/user/pay': {
    summary: 'Start an online payment (epay)',
    auth: 'user',
    body: payBody,
    data: paymentFieldsSchema,
    beside: paymentFormExtrasSchema,
  },
  'GET /api/user/epay/notify': { summary: "The payment provider's notification", auth: 'public', plainText: true },
  'POST /api/user/epay/notify': { summary: "The payment provider's notification", auth: 'public', plainText: true },

  'GET /api/user/': { summary: 'List users', auth: 'admin', query: pagingQuery, data: userPage },
  'GET /api/user/search': { summary: 'Search users by keyword and group', auth: 'admin', query: userSearchQuery, data: userPage },
  'GET /api/user/:id': { summary: 'One user', auth: 'admin', params: userIdParams, data: publicUserSchema },
  'POST /api/user/': { summary: 'Create a user', auth: 'admin', body: createUserBody, data: publicUserSchema },
  'PUT /api/user/': { summary: 'Update a user', auth: 'admin', body: adminUpdateBody },
  'DELETE /api/user/:id': { summary: 'Delete (deregister) a user, as POST /api/user/manage does', auth: 'admin', params: userIdParams },
  'DELETE /api/user/:id/bindings/:binding_type': {
    summary: 'Unbind a sign-in method of a user (email, github, linuxdo, oidc, wechat, telegram)',
    auth: 'admin',
    params: bindingParams,
  },
  'GET /api/user/oauth/bindings': {
    summary: 'Own bindings to administrator-defined OAuth providers (none: modelgate has no such providers)',
    auth: 'user',
    data: z.array(z.never()),
  },
  'GET /api/user/:id/oauth/bindings': {
    summary: "A user's bindings to administrator-defined OAuth providers (none)",
    auth: 'admin',
    params: userIdParams,
    data: z.array(z.never()),
  },
  'POST /api/user/manage': { summary: 'Enable, disable, delete, promote or demote a user', auth: 'admin', body: manageBody, data: manageResultSchema },

  'GET /api/oauth/state': { summary: 'An anti-forgery state for an OAuth sign-in', auth: 'public', data: z.string() },
  'GET /api/oauth/github': { summary: 'GitHub OAuth callback: sign in, or bind when signed in', auth: 'public', query: oauthCallbackQuery, data: signedIn },
  'GET /api/oauth/linuxdo': { summary: 'LinuxDO OAuth callback: sign in, or bind when signed in', auth: 'public', query: oauthCallbackQuery, data: signedIn },
  'GET /api/oauth/oidc': { summary: 'OpenID Connect callback: sign in, or bind when signed in', auth: 'public', query: oauthCallbackQuery, data: signedIn },
  'POST /api/oauth/oidc/discovery': {
    summary: "Read an OpenID provider's discovery document",
    auth: 'root',
    body: oidcDiscoveryBody,
    data: oidcDiscoverySchema,
  },
  'GET /api/oauth/wechat': { summary: 'Sign in with a WeChat verification code', auth: 'public', query: z.object({ code: z.string() }), data: signedIn },
  'GET /api/oauth/wechat/bind': { summary: 'Bind WeChat to the signed-in user', auth: 'user', query: z.object({ code: z.string() }) },
  'GET /api/oauth/telegram/login': { summary: 'Sign in with the Telegram login widget data', auth: 'public', data: signedIn },
  'GET /api/oauth/telegram/bind': { summary: 'Bind Telegram to the signed-in user', auth: 'user' },
  'GET /api/oauth/email/bind': { summary: 'Bind an email address with a mailed code', auth: 'user', query: z.object({ email: z.string(), code: z.string() }) },
  'POST /api/oauth/email/bind': {
    summary: 'Bind an email address with a mailed code (new-api’s newest console)',
    auth: 'user',
    body: z.object({ email: z.string(), code: z.string() }),
  },
  'POST /api/oauth/wechat/bind': {
    summary: 'Bind WeChat to the signed-in user (new-api’s newest console)',
    auth: 'user',
    body: z.object({ code: z.string() }),
  },
};

export const ROUTE_DOCS: RouteDocs = { ...ACCOUNT_ROUTE_DOCS, ...SECURITY_ROUTE_DOCS, ...PASSKEY_ROUTE_DOCS, ...ADMIN_ROUTE_DOCS };
