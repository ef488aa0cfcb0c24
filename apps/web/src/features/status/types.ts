/** The public status object of GET /api/status (spec 01 §3 "Status information"). */
export interface SystemStatus {
  system_name?: string;
  logo?: string;
  footer_html?: string;
  quota_per_unit?: number;
  display_in_currency?: boolean;
  enable_drawing?: boolean;
  enable_task?: boolean;
  enable_data_export?: boolean;
  chats?: unknown;
  data_export_default_time?: string;
  default_collapse_sidebar?: boolean;
  mj_notify_enabled?: boolean;
  chat_link?: string;
  chat_link2?: string;
  email_verification?: boolean;
  turnstile_check?: boolean;
  turnstile_site_key?: string;
  github_oauth?: boolean;
  github_client_id?: string;
  linuxdo_oauth?: boolean;
  linuxdo_client_id?: string;
  wechat_login?: boolean;
  wechat_qrcode?: string;
  telegram_oauth?: boolean;
  telegram_bot_name?: string;
  oidc_enabled?: boolean;
  oidc_client_id?: string;
  oidc_authorization_endpoint?: string;
  server_address?: string;
  top_up_link?: string;
  min_topup?: number;
  enable_online_topup?: boolean;
  version?: string;
  start_time?: number;
  /** general_setting.docs_link: the documentation address the header links to (new-api's 文档). */
  docs_link?: string;
  demo_site_enabled?: boolean;
  self_use_mode_enabled?: boolean;
  /** Newer servers only; absent means "enabled". */
  password_login_enabled?: boolean;
  register_enabled?: boolean;
  password_register_enabled?: boolean;
}

/** Status switches that can hide a navigation entry. */
export type StatusFlag = 'enable_data_export' | 'enable_drawing' | 'enable_task';
