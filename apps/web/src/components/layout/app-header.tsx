import { Nav } from '@douyinfe/semi-ui';
import { IconAppCenter, IconHome, IconInfoCircle } from '@douyinfe/semi-icons';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation } from 'react-router';
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
};

interface TopNavItem {
  key: string;
  to: string;
  labelKey: NavLabelKey;
}

export function AppHeader() {
  const { t } = useTranslation('layout');
  const status = useStatus();
  const roles = useSessionRoles();
  const { pathname } = useLocation();

  const consoleEntries = visibleConsoleRoutes(roles, status);
  const pages: TopNavItem[] = publicRoutes.flatMap((route) =>
    route.navLabelKey ? [{ key: route.path, to: route.path, labelKey: route.navLabelKey }] : [],
  );
  // "Console" exists only once some console screen does; it opens the first one this user may see.
  const items: TopNavItem[] = consoleEntries.length
    ? [pages[0], { key: 'console', to: consoleEntries[0].path, labelKey: 'console' }, ...pages.slice(1)]
    : pages;

  const onConsolePage = consoleEntries.some((route) => pathname === route.path || pathname.startsWith(`${route.path}/`));
  const selectedKey = onConsolePage ? 'console' : pathname;
  const systemName = useSystemName();

  return (
    <Nav
      mode="horizontal"
      className="mg-top-nav"
      selectedKeys={[selectedKey]}
      header={
        <Link to="/" className="mg-brand" aria-label={systemName}>
          <img src={status.logo || '/logo.svg'} alt="" className="mg-brand-logo" />
          <span className="mg-brand-name">{systemName}</span>
        </Link>
      }
      items={items.map((item) => ({ itemKey: item.key, text: t(`nav.${item.labelKey}`), icon: topNavIcons[item.labelKey] }))}
      renderWrapper={({ itemElement, props }) => {
        const target = items.find((item) => item.key === props.itemKey);
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
