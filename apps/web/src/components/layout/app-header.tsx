import { Nav, Tag } from '@douyinfe/semi-ui';
import { IconAppCenter, IconBookStroked, IconHome, IconInfoCircle } from '@douyinfe/semi-icons';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation } from 'react-router';
import { docsAddress } from '../../features/status/docs-link';
import { useStatus, useSystemName } from '../../features/status/queries';
import { useSessionRoles } from '../../lib/session';
import { publicRoutes, visibleConsoleRoutes, type NavLabelKey } from '../../route-table';
import { LanguageSwitch } from './language-switch';
import { ThemeToggle } from './theme-toggle';
import { UserMenu } from './user-menu';

const topNavIcons: Partial<Record<NavLabelKey, ReactNode>> = {
  home: <IconHome />,
  about: <IconInfoCircle />,
  console: <IconAppCenter />,
  docs: <IconBookStroked />,
};

interface TopNavItem {
  key: string;
  to: string;
  labelKey: NavLabelKey;
  /** An address outside the console, opened in a new tab. */
  external?: boolean;
}

export function AppHeader() {
  const { t } = useTranslation('layout');
  const status = useStatus();
  const roles = useSessionRoles();
  const { pathname } = useLocation();

  const consoleEntries = visibleConsoleRoutes(roles, status);
  const pages: TopNavItem[] = publicRoutes.flatMap((route) => (route.navLabelKey ? [{ key: route.path, to: route.path, labelKey: route.navLabelKey }] : []));
  // "Console" exists only once some console screen does; it opens the first one this user may see.
  const withConsole: TopNavItem[] = consoleEntries.length
    ? [pages[0], { key: 'console', to: consoleEntries[0].path, labelKey: 'console' }, ...pages.slice(1)]
    : pages;
  // As in new-api, 文档 sits before 关于 when a documentation link is set.
  const docs = docsAddress(status.docs_link);
  const aboutAt = withConsole.findIndex((item) => item.labelKey === 'about');
  const items: TopNavItem[] = docs
    ? [
        ...withConsole.slice(0, aboutAt === -1 ? withConsole.length : aboutAt),
        { key: 'docs', to: docs, labelKey: 'docs', external: true },
        ...(aboutAt === -1 ? [] : withConsole.slice(aboutAt)),
      ]
    : withConsole;

  const onConsolePage = consoleEntries.some((route) => pathname === route.path || pathname.startsWith(`${route.path}/`));
  const selectedKey = onConsolePage ? 'console' : pathname;
  const systemName = useSystemName();
  // new-api's mark beside the name: 自用模式 wins when both modes are on.
  const modeTag = status.self_use_mode_enabled ? 'selfUseMode' : status.demo_site_enabled ? 'demoSite' : undefined;

  return (
    <Nav
      mode="horizontal"
      className="mg-top-nav"
      selectedKeys={[selectedKey]}
      header={
        <Link to="/" className="mg-brand" aria-label={systemName}>
          <img src={status.logo || '/logo.svg'} alt="" className="mg-brand-logo" />
          <span className="mg-brand-name">{systemName}</span>
          {modeTag && (
            <Tag color={modeTag === 'selfUseMode' ? 'purple' : 'blue'} size="small" shape="circle" data-testid="mode-tag">
              {t(`header.${modeTag}`)}
            </Tag>
          )}
        </Link>
      }
      items={items.map((item) => ({ itemKey: item.key, text: t(`nav.${item.labelKey}`), icon: topNavIcons[item.labelKey] }))}
      renderWrapper={({ itemElement, props }) => {
        const target = items.find((item) => item.key === props.itemKey);
        if (target?.external) {
          return (
            <a href={target.to} target="_blank" rel="noopener noreferrer" className="mg-nav-link" data-testid="nav-docs">
              {itemElement}
            </a>
          );
        }
        return target ? (
          <Link to={target.to} className="mg-nav-link">
            {itemElement}
          </Link>
        ) : (
          itemElement
        );
      }}
      footer={
        <div className="mg-header-actions">
          <ThemeToggle />
          <LanguageSwitch />
          <UserMenu />
        </div>
      }
    />
  );
}
