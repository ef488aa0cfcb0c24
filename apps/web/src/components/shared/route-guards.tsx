import { Suspense, type ComponentType } from 'react';
import { Navigate, useLocation } from 'react-router';
import { useStatus } from '../../features/status/queries';
import FeatureOffPage from '../../features/not-found/feature-off-page';
import NotFoundPage from '../../features/not-found/not-found-page';
import { useSessionRoles } from '../../lib/session';
import { canSee, isProtectedPath, type ConsoleRoute } from '../../route-table';
import { PageLoading } from './page-loading';

/** Spec 01 §2: a protected route without a stored user goes to /login. */
function RedirectToLogin() {
  return <Navigate to="/login" replace />;
}

interface ConsolePageProps {
  route: ConsoleRoute;
  page: ComponentType;
}

/**
 * Renders a console screen only for a signed-in user allowed to see it; others get the not-found
 * page, not a hint that it exists. A screen switched off in the settings says so instead.
 */
export function ConsolePage({ route, page: Page }: ConsolePageProps) {
  const roles = useSessionRoles();
  const status = useStatus();
  if (!roles.signedIn) return <RedirectToLogin />;
  if (!canSee(route, roles, status)) {
    const switchedOff = route.requiresStatusFlag !== undefined && canSee({ ...route, requiresStatusFlag: undefined }, roles, status);
    return switchedOff && route.requiresStatusFlag ? <FeatureOffPage flag={route.requiresStatusFlag} /> : <NotFoundPage />;
  }
  return (
    <Suspense fallback={<PageLoading />}>
      <Page />
    </Suspense>
  );
}

/** The catch-all: unknown protected paths still ask a signed-out visitor to log in first. */
export function CatchAllRoute() {
  const { pathname } = useLocation();
  const { signedIn } = useSessionRoles();
  if (!signedIn && isProtectedPath(pathname)) return <RedirectToLogin />;
  return <NotFoundPage />;
}
