import type { ComponentType } from 'react';
import type { ConsolePath, PublicPath } from './route-table';

export type PageLoader = () => Promise<{ default: ComponentType }>;

/**
 * The page each path of route-table.tsx loads, code-split. Apart from the table because pages
 * import the table (paths, the visible navigation): it names no page, so nothing imports round a
 * cycle. Keyed by the table's path types, so a screen without its page does not type-check.
 */
export const consolePageLoaders: Readonly<Record<ConsolePath, PageLoader>> = {
  '/playground': () => import('./features/playground/playground-page'),
  '/channel': () => import('./features/channels/channels-page'),
  '/token': () => import('./features/tokens/tokens-page'),
  '/detail': () => import('./features/detail/detail-page'),
  '/redemption': () => import('./features/redemptions/redemptions-page'),
  '/topup': () => import('./features/wallet/wallet-page'),
  '/chat': () => import('./features/chat/chat-page'),
  '/chat2link': () => import('./features/chat/chat2link-page'),
  '/user': () => import('./features/users/users-page'),
  '/log': () => import('./features/logs/logs-page'),
  '/audit': () => import('./features/audit/audit-page'),
  '/midjourney': () => import('./features/midjourney/midjourney-page'),
  '/task': () => import('./features/tasks/tasks-page'),
  '/setting': () => import('./features/settings/settings-page'),
};

export const publicPageLoaders: Readonly<Record<PublicPath, PageLoader>> = {
  '/': () => import('./features/home/home-page'),
  '/pricing': () => import('./features/pricing/pricing-page'),
  '/about': () => import('./features/about/about-page'),
  '/login': () => import('./features/auth/login-page'),
  '/register': () => import('./features/auth/register-page'),
  '/reset': () => import('./features/auth/reset-request-page'),
  '/user/reset': () => import('./features/auth/reset-confirm-page'),
  '/oauth/:provider': () => import('./features/auth/oauth-callback-page'),
};
