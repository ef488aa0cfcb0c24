import type { ComponentType, ReactNode } from 'react';
import type zhLayout from './i18n/locales/zh/layout.json';
import type { StatusFlag, SystemStatus } from './features/status/types';
import {
  IconCheckList,
  IconComment,
  IconCreditCard,
  IconGift,
  IconHistogram,
  IconImage,
  IconKey,
  IconLayers,
  IconPieChart2Stroked,
  IconSetting,
  IconTerminal,
  IconUser,
} from '@douyinfe/semi-icons';
import { hasChatLink } from './features/chat/chat-links';

export type NavLabelKey = keyof (typeof zhLayout)['nav'];

type PageModule = { default: ComponentType };

/** A signed-in screen shown in the side navigation. */
export interface ConsoleRoute {
  path: string;
  /** Further paths served by the same page, e.g. '/channel/edit/:id'. */
  extraPaths?: string[];
  labelKey: NavLabelKey;
  icon: ReactNode;
  requiresAdmin?: boolean;
  /** The screen exists only while this status switch is on. */
  requiresStatusFlag?: StatusFlag;
  /** Listed in the side navigation only while this holds; the screen itself stays reachable. */
  navWhen?: (status: SystemStatus) => boolean;
  load: () => Promise<PageModule>;
}

/**
 * The signed-in screens. Adding a screen is one line here; its side-nav position comes from
 * SIDE_NAV_ORDER, its guard from the flags, and the post-login target and header links follow.
 * Example: { path: '/token', labelKey: 'token', icon: <IconKey />, load: () => import('./features/token/token-page') },
 */
export const consoleRoutes: ConsoleRoute[] = [
  { path: '/playground', labelKey: 'playground', icon: <IconTerminal />, load: () => import('./features/playground/playground-page') },
  {
    path: '/channel',
    extraPaths: ['/channel/add', '/channel/edit/:id'],
    labelKey: 'channel',
    icon: <IconLayers />,
    requiresAdmin: true,
    load: () => import('./features/channels/channels-page'),
  },
  { path: '/token', labelKey: 'token', icon: <IconKey />, load: () => import('./features/tokens/tokens-page') },
  {
    path: '/detail',
    labelKey: 'detail',
    icon: <IconPieChart2Stroked />,
    requiresStatusFlag: 'enable_data_export',
    load: () => import('./features/detail/detail-page'),
  },
  { path: '/redemption', labelKey: 'redemption', icon: <IconGift />, requiresAdmin: true, load: () => import('./features/redemptions/redemptions-page') },
  { path: '/topup', labelKey: 'topup', icon: <IconCreditCard />, load: () => import('./features/wallet/wallet-page') },
  { path: '/chat', extraPaths: ['/chat/:id'], labelKey: 'chat', icon: <IconComment />, navWhen: hasChatLink, load: () => import('./features/chat/chat-page') },
  { path: '/chat2link', labelKey: 'chat', icon: <IconComment />, navWhen: () => false, load: () => import('./features/chat/chat2link-page') },
  {
    path: '/user',
    extraPaths: ['/user/edit/:id', '/user/edit'],
    labelKey: 'user',
    icon: <IconUser />,
    requiresAdmin: true,
    load: () => import('./features/users/users-page'),
  },
  { path: '/log', labelKey: 'log', icon: <IconHistogram />, load: () => import('./features/logs/logs-page') },
  {
    path: '/midjourney',
    labelKey: 'midjourney',
    icon: <IconImage />,
    requiresStatusFlag: 'enable_drawing',
    load: () => import('./features/midjourney/midjourney-page'),
  },
  { path: '/task', labelKey: 'task', icon: <IconCheckList />, requiresStatusFlag: 'enable_task', load: () => import('./features/tasks/tasks-page') },
  { path: '/setting', labelKey: 'setting', icon: <IconSetting />, load: () => import('./features/settings/settings-page') },
];

/** Side navigation order of spec 02 §2, independent of the order screens were added above. */
const SIDE_NAV_ORDER = ['/playground', '/channel', '/chat', '/token', '/detail', '/redemption', '/topup', '/user', '/log', '/midjourney', '/task', '/setting'];

/**
 * Paths that need a signed-in user per spec 02 §2. A signed-out visitor is sent to /login for these
 * even before the screen exists, so the rule does not depend on which issue shipped which page.
 */
export const PROTECTED_PATH_PREFIXES = [...SIDE_NAV_ORDER, '/chat2link'];

export function isProtectedPath(pathname: string): boolean {
  return PROTECTED_PATH_PREFIXES.some((prefix) => pathname === prefix || pathname.startsWith(`${prefix}/`));
}

function navRank(path: string): number {
  const rank = SIDE_NAV_ORDER.indexOf(path);
  return rank === -1 ? SIDE_NAV_ORDER.length : rank;
}

export interface Viewer {
  admin: boolean;
}

export function canSee(route: ConsoleRoute, viewer: Viewer, status: SystemStatus): boolean {
  if (route.requiresAdmin && !viewer.admin) return false;
  if (route.requiresStatusFlag && status[route.requiresStatusFlag] !== true) return false;
  return true;
}

export function visibleConsoleRoutes(viewer: Viewer, status: SystemStatus): ConsoleRoute[] {
  return consoleRoutes
    .filter((route) => canSee(route, viewer, status) && (route.navWhen?.(status) ?? true))
    .sort((left, right) => navRank(left.path) - navRank(right.path));
}

export function hasConsoleRoute(path: string): boolean {
  return consoleRoutes.some((route) => route.path === path);
}

/**
 * Spec 01 §2: after a password login the user lands on the token list. Until that screen ships the
 * home page is the only sensible target; registering '/token' above flips this automatically.
 */
export function postPasswordLoginPath(): string {
  return hasConsoleRoute('/token') ? '/token' : '/';
}

/** Where the header's user menu links for personal settings; null hides the entry. */
export function settingsPath(): string | null {
  return hasConsoleRoute('/setting') ? '/setting' : null;
}

/** A page anyone may open; those with a navLabelKey appear in the top navigation, in this order. */
export interface PublicRoute {
  path: string;
  navLabelKey?: NavLabelKey;
  load: () => Promise<PageModule>;
}

/** Spec 02 §2 top-nav order is home, console, pricing, about; "console" is inserted after the first entry. */
export const publicRoutes: PublicRoute[] = [
  { path: '/', navLabelKey: 'home', load: () => import('./features/home/home-page') },
  { path: '/pricing', navLabelKey: 'pricing', load: () => import('./features/pricing/pricing-page') },
  { path: '/about', navLabelKey: 'about', load: () => import('./features/about/about-page') },
  { path: '/login', load: () => import('./features/auth/login-page') },
  { path: '/register', load: () => import('./features/auth/register-page') },
  { path: '/reset', load: () => import('./features/auth/reset-request-page') },
  { path: '/user/reset', load: () => import('./features/auth/reset-confirm-page') },
  { path: '/oauth/:provider', load: () => import('./features/auth/oauth-callback-page') },
];
