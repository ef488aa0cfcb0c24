import { ChannelStatus, ChannelType } from '@modelgate/contract';
import type { SiteStatus, UptimeGroup } from '@modelgate/contract';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.js';
import { ok } from '../envelope.js';

async function hasEnabledSunoChannel(context: AppContext): Promise<boolean> {
  const row = await context.db.kysely
    .selectFrom('channels')
    .select('id')
    .where('type', '=', ChannelType.SunoAPI)
    .where('status', '=', ChannelStatus.Enabled)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * new-api's console merges this over its own sidebar defaults: the pages of features modelgate
 * does not have (model metadata, model deployments, subscription plans) stay out of its menu.
 */
export const NEW_API_SIDEBAR = JSON.stringify({ admin: { models: false, deployment: false, subscription: false } });

/** Public, unauthenticated answers the console loads before anyone signs in. */
export function statusRoutes(app: FastifyInstance, context: AppContext): void {
  const { options } = context;

  app.get('/api/status', async () => {
    const serverAddress = options.string('ServerAddress');
    return ok<SiteStatus>({
      version: context.version,
      start_time: context.startTime,
      system_name: options.string('SystemName'),
      logo: options.string('Logo'),
      footer_html: options.string('Footer'),
      quota_per_unit: options.number('QuotaPerUnit'),
      display_in_currency: options.bool('DisplayInCurrencyEnabled'),
      display_token_stat_enabled: options.bool('DisplayTokenStatEnabled'),
      enable_drawing: options.bool('DrawingEnabled'),
      // The admin's switch, or a Suno channel able to serve (spec 02 §2: tasks show when a task channel exists).
      enable_task: options.bool('TaskEnabled') || (await hasEnabledSunoChannel(context)),
      enable_data_export: options.bool('DataExportEnabled'),
      data_export_default_time: options.string('DataExportDefaultTime'),
      default_collapse_sidebar: options.bool('DefaultCollapseSidebar'),
      mj_notify_enabled: options.bool('MjNotifyEnabled'),
      chats: options.json<unknown[]>('Chats'),
      chat_link: options.string('ChatLink'),
      chat_link2: options.string('ChatLink2'),
      password_login_enabled: options.bool('PasswordLoginEnabled'),
      password_register_enabled: options.bool('PasswordRegisterEnabled'),
      register_enabled: options.bool('RegisterEnabled'),
      email_verification: options.bool('EmailVerificationEnabled'),
      turnstile_check: options.bool('TurnstileCheckEnabled'),
      turnstile_site_key: options.string('TurnstileSiteKey'),
      github_oauth: options.bool('GitHubOAuthEnabled'),
      github_client_id: options.string('GitHubClientId'),
      linuxdo_oauth: options.bool('LinuxDOOAuthEnabled'),
      linuxdo_client_id: options.string('LinuxDOClientId'),
      wechat_login: options.bool('WeChatAuthEnabled'),
      wechat_qrcode: options.string('WeChatAccountQRCodeImageURL'),
      telegram_oauth: options.bool('TelegramOAuthEnabled'),
      telegram_bot_name: options.string('TelegramBotName'),
      oidc_enabled: options.bool('oidc.enabled'),
      oidc_client_id: options.string('oidc.client_id'),
      oidc_authorization_endpoint: options.string('oidc.authorization_endpoint'),
      server_address: serverAddress,
      top_up_link: options.string('TopUpLink'),
      min_topup: options.number('MinTopUp'),
      price: options.number('Price'),
      enable_online_topup: options.string('PayAddress') !== '' && options.string('EpayId') !== '' && options.raw('EpayKey') !== '',
      // modelgate creates its root on the first start, so an instance is always set up.
      setup: true,
      docs_link: options.string('general_setting.docs_link'),
      demo_site_enabled: options.bool('DemoSiteEnabled'),
      self_use_mode_enabled: options.bool('SelfUseModeEnabled'),
      // new-api answers its BATCH_UPDATE_ENABLED here; modelgate always batches usage counters
      // (every BATCH_UPDATE_INTERVAL seconds, at least 1), so the answer is always true.
      enable_batch_update: context.config.batchUpdateIntervalSeconds > 0,
      // new-api's passkey fields: the options as set (its defaults: ServerAddress for the origins).
      passkey_login: options.bool('passkey.enabled'),
      passkey_display_name: options.string('passkey.rp_display_name') || options.string('SystemName'),
      passkey_rp_id: options.string('passkey.rp_id'),
      passkey_origins: options.string('passkey.origins') || serverAddress,
      passkey_allow_insecure: options.bool('passkey.allow_insecure_origin'),
      passkey_user_verification: options.string('passkey.user_verification'),
      passkey_attachment: options.string('passkey.attachment_preference'),
      api_info_enabled: false,
      announcements_enabled: false,
      faq_enabled: false,
      uptime_kuma_enabled: false,
      user_agreement_enabled: false,
      privacy_policy_enabled: false,
      discord_oauth: false,
      custom_oauth_providers: [],
      HeaderNavModules: '',
      SidebarModulesAdmin: NEW_API_SIDEBAR,
    });
  });

  // new-api's dashboard reads its Uptime Kuma groups here; modelgate monitors nothing there: none.
  app.get('/api/uptime/status', async () => ok<UptimeGroup[]>([]));

  app.get('/api/notice', async () => ok(options.string('Notice')));
  app.get('/api/about', async () => ok(options.string('About')));
  app.get('/api/home_page_content', async () => ok(options.string('HomePageContent')));
}
