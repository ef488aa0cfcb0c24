import { Divider, Nav, SideSheet } from '@douyinfe/semi-ui';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation } from 'react-router';
import { useSystemName } from '../../features/status/queries';
import type { ConsoleRoute } from '../../route-table';
import { topNavIcons, useTopNavItems } from './top-nav-items';

interface NavDrawerProps {
  visible: boolean;
  onClose: () => void;
  /** The console screens this user may open (empty when signed out). */
  routes: ConsoleRoute[];
}

/** Phones: the side navigation and the header's pages in one drawer, closed again by any navigation. */
export function NavDrawer({ visible, onClose, routes }: NavDrawerProps) {
  const { t } = useTranslation('layout');
  const { pathname } = useLocation();
  const systemName = useSystemName();
  // "Console" only opens the first screen, which the drawer lists itself.
  const pages = useTopNavItems().filter((item) => item.key !== 'console');

  useEffect(() => {
    onClose();
    // Closes on every navigation, including one made from inside the drawer.
  }, [pathname, onClose]);

  const selectedRoute = routes.find((route) => pathname === route.path || pathname.startsWith(`${route.path}/`));
  const selectedPage = pages.find((item) => item.to === pathname);

  return (
    <SideSheet placement="left" width={260} visible={visible} onCancel={onClose} title={systemName} className="mg-nav-drawer" bodyStyle={{ padding: 0 }}>
      {routes.length > 0 && (
        <>
          <Nav
            mode="vertical"
            className="mg-drawer-nav"
            selectedKeys={selectedRoute ? [selectedRoute.path] : []}
            items={routes.map((route) => ({ itemKey: route.path, text: t(`nav.${route.labelKey}`), icon: route.icon }))}
            renderWrapper={({ itemElement, props }) => (
              <Link to={String(props.itemKey)} className="mg-nav-link">
                {itemElement}
              </Link>
            )}
          />
          <Divider margin={4} />
        </>
      )}
      <Nav
        mode="vertical"
        className="mg-drawer-nav"
        selectedKeys={selectedPage ? [selectedPage.key] : []}
        items={pages.map((item) => ({ itemKey: item.key, text: t(`nav.${item.labelKey}`), icon: topNavIcons[item.labelKey] }))}
        renderWrapper={({ itemElement, props }) => {
          const target = pages.find((item) => item.key === props.itemKey);
          if (!target) return itemElement;
          return target.external ? (
            <a href={target.to} target="_blank" rel="noopener noreferrer" className="mg-nav-link">
              {itemElement}
            </a>
          ) : (
            <Link to={target.to} className="mg-nav-link">
              {itemElement}
            </Link>
          );
        }}
      />
    </SideSheet>
  );
}
