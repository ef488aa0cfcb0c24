import { Nav } from '@douyinfe/semi-ui';
import { useTranslation } from 'react-i18next';
import { Link, useLocation } from 'react-router';
import type { ConsoleRoute } from '../../route-table';

interface SideNavProps {
  routes: ConsoleRoute[];
  collapsed: boolean;
  onCollapsedChange: (collapsed: boolean) => void;
}

export function SideNav({ routes, collapsed, onCollapsedChange }: SideNavProps) {
  const { t } = useTranslation('layout');
  const { pathname } = useLocation();
  const selected = routes.find((route) => pathname === route.path || pathname.startsWith(`${route.path}/`));

  return (
    <Nav
      mode="vertical"
      className="mg-side-nav"
      isCollapsed={collapsed}
      onCollapseChange={onCollapsedChange}
      selectedKeys={selected ? [selected.path] : []}
      items={routes.map((route) => ({ itemKey: route.path, text: t(`nav.${route.labelKey}`), icon: route.icon }))}
      renderWrapper={({ itemElement, props }) => (
        <Link to={String(props.itemKey)} className="mg-nav-link">
          {itemElement}
        </Link>
      )}
      footer={{ collapseButton: true }}
    />
  );
}
