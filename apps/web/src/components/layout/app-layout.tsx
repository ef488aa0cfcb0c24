import { Layout } from '@douyinfe/semi-ui';
import { Suspense, useCallback, useEffect, useState } from 'react';
import { Outlet, useLocation } from 'react-router';
import { useSelf } from '../../features/auth/queries';
import { useStatus } from '../../features/status/queries';
import { useSessionRoles } from '../../lib/session';
import { visibleConsoleRoutes } from '../../route-table';
import { useNarrowScreen } from '../../lib/use-narrow-screen';
import { PageLoading } from '../shared/page-loading';
import { AppFooter } from './app-footer';
import { AppHeader } from './app-header';
import { NavDrawer } from './nav-drawer';
import { SideNav } from './side-nav';

/** Keeps the tab title and icon in line with the admin's system name and logo. */
function useDocumentBranding(systemName: string | undefined, logo: string | undefined): void {
  useEffect(() => {
    if (systemName) document.title = systemName;
  }, [systemName]);
  useEffect(() => {
    if (!logo) return;
    const link = document.querySelector<HTMLLinkElement>('link[rel="icon"]');
    if (link) link.href = logo;
  }, [logo]);
}

export function AppLayout() {
  const status = useStatus();
  const roles = useSessionRoles();
  const { pathname } = useLocation();
  useSelf();
  useDocumentBranding(status.system_name, status.logo);

  // The admin's DefaultCollapseSidebar decides until the user toggles the sider in this tab.
  const [userCollapsed, setUserCollapsed] = useState<boolean | null>(null);
  const collapsed = userCollapsed ?? status.default_collapse_sidebar === true;
  const onCollapsedChange = useCallback((next: boolean) => setUserCollapsed(next), []);
  // Phones get no sider: the navigation lives in a drawer opened from the header.
  const narrow = useNarrowScreen();
  const [drawerOpen, setDrawerOpen] = useState(false);
  const openDrawer = useCallback(() => setDrawerOpen(true), []);
  const closeDrawer = useCallback(() => setDrawerOpen(false), []);

  // Every page starts at the top; the content pane, not the window, is what scrolls.
  useEffect(() => {
    document.querySelector('.mg-scroll')?.scrollTo({ top: 0 });
  }, [pathname]);

  const sideRoutes = roles.signedIn ? visibleConsoleRoutes(roles, status) : [];

  return (
    <Layout className="mg-app">
      <Layout.Header className="mg-header">
        <AppHeader onOpenMenu={narrow ? openDrawer : undefined} />
      </Layout.Header>
      <Layout className="mg-body">
        {!narrow && sideRoutes.length > 0 && (
          <Layout.Sider className="mg-sider">
            <SideNav routes={sideRoutes} collapsed={collapsed} onCollapsedChange={onCollapsedChange} />
          </Layout.Sider>
        )}
        <div className="mg-scroll">
          <Layout.Content className="mg-content">
            <Suspense fallback={<PageLoading />}>
              <Outlet />
            </Suspense>
          </Layout.Content>
          <Layout.Footer className="mg-footer-bar">
            <AppFooter />
          </Layout.Footer>
        </div>
      </Layout>
      {narrow && <NavDrawer visible={drawerOpen} onClose={closeDrawer} routes={sideRoutes} />}
    </Layout>
  );
}
