import i18n from 'i18next';
import { initReactI18next } from 'react-i18next';
import { readString, StorageKey, writeString } from '../lib/storage';
import zhCommon from './locales/zh/common.json';
import zhLayout from './locales/zh/layout.json';
import zhAuth from './locales/zh/auth.json';
import zhHome from './locales/zh/home.json';
import zhAbout from './locales/zh/about.json';
import zhNotFound from './locales/zh/not-found.json';
import zhSettings from './locales/zh/settings.json';
import zhUsers from './locales/zh/users.json';
import zhRedemptions from './locales/zh/redemptions.json';
import zhWallet from './locales/zh/wallet.json';
import zhChat from './locales/zh/chat.json';
import zhChannels from './locales/zh/channels.json';
import zhTokens from './locales/zh/tokens.json';
import zhPricing from './locales/zh/pricing.json';
import zhLogs from './locales/zh/logs.json';
import zhPlayground from './locales/zh/playground.json';
import zhDetail from './locales/zh/detail.json';
import zhSettingsOperation from './locales/zh/settings-operation.json';
import zhSettingsSystem from './locales/zh/settings-system.json';
import zhSettingsOther from './locales/zh/settings-other.json';
import zhSettingsModelPricing from './locales/zh/settings-model-pricing.json';
import zhSettingsNotify from './locales/zh/settings-notify.json';
import zhMidjourney from './locales/zh/midjourney.json';
import zhTasks from './locales/zh/tasks.json';
import zhAudit from './locales/zh/audit.json';
import zhSecurity from './locales/zh/security.json';
import zhPasskeys from './locales/zh/passkeys.json';
import enCommon from './locales/en/common.json';
import enLayout from './locales/en/layout.json';
import enAuth from './locales/en/auth.json';
import enHome from './locales/en/home.json';
import enAbout from './locales/en/about.json';
import enNotFound from './locales/en/not-found.json';
import enSettings from './locales/en/settings.json';
import enUsers from './locales/en/users.json';
import enRedemptions from './locales/en/redemptions.json';
import enWallet from './locales/en/wallet.json';
import enChat from './locales/en/chat.json';
import enChannels from './locales/en/channels.json';
import enTokens from './locales/en/tokens.json';
import enPricing from './locales/en/pricing.json';
import enLogs from './locales/en/logs.json';
import enPlayground from './locales/en/playground.json';
import enDetail from './locales/en/detail.json';
import enSettingsOperation from './locales/en/settings-operation.json';
import enSettingsSystem from './locales/en/settings-system.json';
import enSettingsOther from './locales/en/settings-other.json';
import enSettingsModelPricing from './locales/en/settings-model-pricing.json';
import enSettingsNotify from './locales/en/settings-notify.json';
import enMidjourney from './locales/en/midjourney.json';
import enTasks from './locales/en/tasks.json';
import enAudit from './locales/en/audit.json';
import enSecurity from './locales/en/security.json';
import enPasskeys from './locales/en/passkeys.json';

export const SUPPORTED_LANGUAGES = ['zh', 'en'] as const;
export type Language = (typeof SUPPORTED_LANGUAGES)[number];
export const FALLBACK_LANGUAGE: Language = 'zh';

export const resources = {
  zh: {
    common: zhCommon,
    layout: zhLayout,
    auth: zhAuth,
    home: zhHome,
    about: zhAbout,
    'not-found': zhNotFound,
    settings: zhSettings,
    users: zhUsers,
    redemptions: zhRedemptions,
    wallet: zhWallet,
    chat: zhChat,
    channels: zhChannels,
    tokens: zhTokens,
    pricing: zhPricing,
    logs: zhLogs,
    playground: zhPlayground,
    detail: zhDetail,
    'settings-operation': zhSettingsOperation,
    'settings-system': zhSettingsSystem,
    'settings-other': zhSettingsOther,
    'settings-model-pricing': zhSettingsModelPricing,
    'settings-notify': zhSettingsNotify,
    midjourney: zhMidjourney,
    tasks: zhTasks,
    audit: zhAudit,
    security: zhSecurity,
    passkeys: zhPasskeys,
  },
  en: {
    common: enCommon,
    layout: enLayout,
    auth: enAuth,
    home: enHome,
    about: enAbout,
    'not-found': enNotFound,
    settings: enSettings,
    users: enUsers,
    redemptions: enRedemptions,
    wallet: enWallet,
    chat: enChat,
    channels: enChannels,
    tokens: enTokens,
    pricing: enPricing,
    logs: enLogs,
    playground: enPlayground,
    detail: enDetail,
    'settings-operation': enSettingsOperation,
    'settings-system': enSettingsSystem,
    'settings-other': enSettingsOther,
    'settings-model-pricing': enSettingsModelPricing,
    'settings-notify': enSettingsNotify,
    midjourney: enMidjourney,
    tasks: enTasks,
    audit: enAudit,
    security: enSecurity,
    passkeys: enPasskeys,
  },
} as const;

/** Older consoles stored full tags such as "en-US" or "zh-CN"; only the primary subtag matters here. */
export function normalizeLanguage(tag: string | null | undefined): Language {
  const primary = (tag ?? '').toLowerCase().split(/[-_]/)[0];
  return (SUPPORTED_LANGUAGES as readonly string[]).includes(primary) ? (primary as Language) : FALLBACK_LANGUAGE;
}

void i18n.use(initReactI18next).init({
  resources,
  lng: normalizeLanguage(readString(StorageKey.language)),
  fallbackLng: FALLBACK_LANGUAGE,
  supportedLngs: SUPPORTED_LANGUAGES,
  ns: Object.keys(resources.zh),
  defaultNS: 'common',
  interpolation: { escapeValue: false },
  returnNull: false,
  showSupportNotice: false,
});

function syncDocumentLanguage(language: string): void {
  const normalized = normalizeLanguage(language);
  writeString(StorageKey.language, normalized);
  document.documentElement.lang = normalized === 'zh' ? 'zh-CN' : 'en';
}

syncDocumentLanguage(i18n.language);
i18n.on('languageChanged', syncDocumentLanguage);

export default i18n;
