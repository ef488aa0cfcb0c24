import type { ReactNode } from 'react';
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
  IconShield,
  IconTerminal,
  IconUser,
} from '@douyinfe/semi-icons';
import { hasChatLink } from './features/chat/chat-links';

export type NavLabelKey = keyof (typeof zhLayout)['nav'];

/** A signed-in screen shown in the side navigation. */
export interface ConsoleRoute {
  path: ConsolePath;
  /** Further paths served by the same page, e.g. '/channel/edit/:id'. */
  extraPaths?: string[];
  labelKey: NavLabelKey;
  icon: ReactNode;
  requiresAdmin?: boolean;
  /** The screen exists only while this status switch is on. */
  requiresStatusFlag?: StatusFlag;
  /** Listed in the side navigation only while this holds; the screen itself stays reachable. */
  navWhen?: (status: SystemStatus) => boolean;
}

/**
 * The signed-in screens. Adding a screen is one line here; its side-nav position comes from
 * SIDE_NAV_ORDER, its guard from the flags, and the post-login target and header links follow.
 * Example: { path: '/token', labelKey: 'token', icon: <IconKey /> },
 */
export const consoleRoutes: ConsoleRoute[] = [
  { path: '/playground', labelKey: 'playground', icon: <IconTerminal /> },
  {
    path: '/channel',
    extraPaths: ['/channel/add', '/channel/edit/:id'],
    labelKey: 'channel',
    icon: <IconLayers />,
    requiresAdmin: true,
  },
  { path: '/token', labelKey: 'token', icon: <IconKey /> },
  {
    path: '/detail',
    labelKey: 'detail',
    icon: <IconPieChart2Stroked />,
    requiresStatusFlag: 'enable_data_export',
  },
  { path: '/redemption', labelKey: 'redemption', icon: <IconGift />, requiresAdmin: true },
  { path: '/topup', labelKey: 'topup', icon: <IconCreditCard /> },
  { path: '/chat', extraPaths: ['/chat/:id'], labelKey: 'chat', icon: <IconComment />, navWhen: hasChatLink },
  { path: '/chat2link', labelKey: 'chat', icon: <IconComment />, navWhen: () => false },
  {
    path: '/user',
    extraPaths: ['/user/edit/:id', '/user/edit'],
    labelKey: 'user',
    icon: <IconUser />,
    requiresAdmin: true,
  },
  { path: '/log', labelKey: 'log', icon: <IconHistogram /> },
  { path: '/audit', labelKey: 'audit', icon: <IconShield />, requiresAdmin: true },
  {
    path: '/midjourney',
    labelKey: 'midjourney',
    icon: <IconImage />,
    requiresStatusFlag: 'enable_drawing',
  },
  { path: '/task', labelKey: 'task', icon: <IconCheckList />, requiresStatusFlag: 'enable_task' },
  { path: '/setting', labelKey: 'setting', icon: <IconSetting /> },
];

/** Side navigation order of spec 02 §2, independent of the order screens were added above. */
const SIDE_NAV_ORDER = [
  '/playground',
  '/channel',
  '/chat',
  '/token',
  '/detail',
  '/redemption',
  '/topup',
  '/user',
  '/log',
  '/audit',
  '/midjourney',
  '/task',
  '/setting',
] as const;

/** Every signed-in screen's path. */
export type ConsolePath = (typeof SIDE_NAV_ORDER)[number] | '/chat2link';
/** Every page open to anyone. */
export type PublicPath = '/' | '/pricing' | '/about' | '/login' | '/register' | '/reset' | '/user/reset' | '/oauth/:provider';

/**
 * Paths that need a signed-in user per spec 02 §2. A signed-out visitor is sent to /login for these
 * even before the screen exists, so the rule does not depend on which issue shipped which page.
 */
export const PROTECTED_PATH_PREFIXES = [...SIDE_NAV_ORDER, '/chat2link'];

export function isProtectedPath(pathname: string): boolean {
  return PROTECTED_PATH_PREFIXES.some((prefix) => pathname === prefix || pathname.startsWith(`${prefix}/`));
}

function navRank(path: string): number {
  const rank = (SIDE_NAV_ORDER as readonly string[]).indexOf(path);
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

/** A page anyone may open; those with a navLabelKey appear in the top navigation, in this order. */
export interface PublicRoute {
  path: PublicPath;
  navLabelKey?: NavLabelKey;
}

/** Spec 02 §2 top-nav order is home, console, pricing, about; "console" is inserted after the first entry. */
export const publicRoutes: PublicRoute[] = [
  { path: '/', navLabelKey: 'home' },
  { path: '/pricing', navLabelKey: 'pricing' },
  { path: '/about', navLabelKey: 'about' },
  { path: '/login' },
  { path: '/register' },
  { path: '/reset' },
  { path: '/user/reset' },
  { path: '/oauth/:provider' },
];
