import { IconAppCenter, IconBookStroked, IconCoinMoneyStroked, IconHome, IconInfoCircle } from '@douyinfe/semi-icons';
import type { ReactNode } from 'react';
import { docsAddress } from '../../features/status/docs-link';
import { useStatus } from '../../features/status/queries';
import { useSessionRoles } from '../../lib/session';
import { publicRoutes, visibleConsoleRoutes, type NavLabelKey } from '../../route-table';

export const topNavIcons: Partial<Record<NavLabelKey, ReactNode>> = {
  home: <IconHome />,
  console: <IconAppCenter />,
  pricing: <IconCoinMoneyStroked />,
  docs: <IconBookStroked />,
  about: <IconInfoCircle />,
};

export interface TopNavItem {
  key: string;
  to: string;
  labelKey: NavLabelKey;
  /** An address outside the console, opened in a new tab. */
  external?: boolean;
}

/** The header's pages in spec 02 §2 order (home, console, pricing, docs, about); the phone drawer lists the same. */
export function useTopNavItems(): TopNavItem[] {
  const status = useStatus();
  const roles = useSessionRoles();
  const consoleEntries = visibleConsoleRoutes(roles, status);
  const pages: TopNavItem[] = publicRoutes.flatMap((route) => (route.navLabelKey ? [{ key: route.path, to: route.path, labelKey: route.navLabelKey }] : []));
  // "Console" exists only once some console screen does; it opens the first one this user may see.
  const withConsole: TopNavItem[] = consoleEntries.length
    ? [pages[0], { key: 'console', to: consoleEntries[0].path, labelKey: 'console' }, ...pages.slice(1)]
    : pages;
  // As in new-api, 文档 sits before 关于 when a documentation link is set.
  const docs = docsAddress(status.docs_link);
  if (!docs) return withConsole;
  const aboutAt = withConsole.findIndex((item) => item.labelKey === 'about');
  return [
    ...withConsole.slice(0, aboutAt === -1 ? withConsole.length : aboutAt),
    { key: 'docs', to: docs, labelKey: 'docs', external: true },
    ...(aboutAt === -1 ? [] : withConsole.slice(aboutAt)),
  ];
}
