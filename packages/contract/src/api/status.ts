import { z } from 'zod';

/** GET /api/status: the site's public settings, which the console loads before anyone signs in. */
export const siteStatusSchema = z.strictObject({
  version: z.string(),
  start_time: z.number().int().describe('Unix seconds the server started.'),
  system_name: z.string(),
  logo: z.string(),
  footer_html: z.string(),
  quota_per_unit: z.number(),
  display_in_currency: z.boolean(),
  display_token_stat_enabled: z.boolean(),
  enable_drawing: z.boolean(),
  enable_task: z.boolean(),
  enable_data_export: z.boolean(),
  data_export_default_time: z.string(),
  default_collapse_sidebar: z.boolean(),
  mj_notify_enabled: z.boolean(),
  chats: z.array(z.unknown()).describe('The chat links the console offers (the Chats option).'),
  chat_link: z.string(),
  chat_link2: z.string(),
  password_login_enabled: z.boolean(),
  password_register_enabled: z.boolean(),
  register_enabled: z.boolean(),
  email_verification: z.boolean(),
  turnstile_check: z.boolean(),
  turnstile_site_key: z.string(),
  github_oauth: z.boolean(),
  github_client_id: z.string(),
  linuxdo_oauth: z.boolean(),
  linuxdo_client_id: z.string(),
  wechat_login: z.boolean(),
  wechat_qrcode: z.string(),
  telegram_oauth: z.boolean(),
  telegram_bot_name: z.string(),
  oidc_enabled: z.boolean(),
  oidc_client_id: z.string(),
  oidc_authorization_endpoint: z.string(),
  server_address: z.string(),
  top_up_link: z.string(),
  min_topup: z.number(),
  price: z.number(),
  enable_online_topup: z.boolean(),
  setup: z.boolean(),
  docs_link: z.string().describe('The documentation address the console header links to.'),
  demo_site_enabled: z.boolean(),
  self_use_mode_enabled: z.boolean(),
  enable_batch_update: z.boolean(),
  passkey_login: z.boolean().describe('Whether passkeys are on (sign-in with a passkey and adding one).'),
  passkey_display_name: z.string(),
  passkey_rp_id: z.string(),
  passkey_origins: z.string(),
  passkey_allow_insecure: z.boolean(),
  passkey_user_verification: z.string(),
  passkey_attachment: z.string(),
  // new-api's dashboard panels (API addresses, announcements, FAQ, Uptime Kuma): modelgate keeps
  // none of them, so they are off and new-api's console shows no empty panel.
  api_info_enabled: z.boolean(),
  announcements_enabled: z.boolean(),
  faq_enabled: z.boolean(),
  uptime_kuma_enabled: z.boolean(),
  user_agreement_enabled: z.boolean(),
  privacy_policy_enabled: z.boolean(),
  discord_oauth: z.boolean().describe('Always false: modelgate has no Discord sign-in.'),
  custom_oauth_providers: z.array(z.never()).describe('Always empty: modelgate has no administrator-defined OAuth providers.'),
  HeaderNavModules: z.string().describe("new-api's header links (JSON); '' keeps its console's defaults."),
  SidebarModulesAdmin: z
    .string()
    .describe("new-api's sidebar switches (JSON): the entries of features modelgate has not (model metadata, deployments, subscriptions) are off."),
});
export type SiteStatus = z.output<typeof siteStatusSchema>;

/** GET /api/setup: modelgate creates its root user on the first start, so status is always true. */
export const setupStatusSchema = z.strictObject({
  status: z.boolean(),
  root_init: z.boolean(),
  database_type: z.string(),
});
export type SetupStatus = z.output<typeof setupStatusSchema>;

/** GET /api/uptime/status: new-api's Uptime Kuma groups for the dashboard (modelgate answers none). */
export const uptimeGroupSchema = z.strictObject({
  categoryName: z.string(),
  monitors: z.array(z.strictObject({ name: z.string(), uptime: z.number(), status: z.number().int(), group: z.string() })),
});
export type UptimeGroup = z.output<typeof uptimeGroupSchema>;
