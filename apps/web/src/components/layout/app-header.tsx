import { Button, Nav, Tag } from '@douyinfe/semi-ui';
import { IconMenu } from '@douyinfe/semi-icons';
import { useTranslation } from 'react-i18next';
import { Link, useLocation } from 'react-router';
import { useStatus, useSystemName } from '../../features/status/queries';
import { useSessionRoles } from '../../lib/session';
import { visibleConsoleRoutes } from '../../route-table';
import { LanguageSwitch } from './language-switch';
import { ThemeToggle } from './theme-toggle';
import { topNavIcons, useTopNavItems } from './top-nav-items';
import { UserMenu } from './user-menu';

interface AppHeaderProps {
  /** Phones: the pages move into the drawer this button opens. */
  onOpenMenu?: () => void;
}

export function AppHeader({ onOpenMenu }: AppHeaderProps) {
  const { t } = useTranslation('layout');
  const status = useStatus();
  const roles = useSessionRoles();
  const { pathname } = useLocation();
  const items = useTopNavItems();

  const onConsolePage = visibleConsoleRoutes(roles, status).some((route) => pathname === route.path || pathname.startsWith(`${route.path}/`));
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
        <>
          {onOpenMenu && (
            <Button
              theme="borderless"
              type="tertiary"
              icon={<IconMenu size="large" />}
              aria-label={t('header.menu')}
              data-testid="nav-menu-button"
              className="mg-menu-button"
              onClick={onOpenMenu}
            />
          )}
          <Link to="/" className="mg-brand" aria-label={systemName}>
            <img src={status.logo || '/logo.svg'} alt="" className="mg-brand-logo" />
            <span className="mg-brand-name">{systemName}</span>
            {modeTag && (
              <Tag color={modeTag === 'selfUseMode' ? 'purple' : 'blue'} size="small" shape="circle" data-testid="mode-tag">
                {t(`header.${modeTag}`)}
              </Tag>
            )}
          </Link>
        </>
      }
      items={onOpenMenu ? [] : items.map((item) => ({ itemKey: item.key, text: t(`nav.${item.labelKey}`), icon: topNavIcons[item.labelKey] }))}
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
