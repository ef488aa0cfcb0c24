import { lazy } from 'react';
import { createBrowserRouter, type RouteObject } from 'react-router';
import { AppLayout } from './components/layout/app-layout';
import { RouteError } from './components/shared/route-error';
import { CatchAllRoute, ConsolePage } from './components/shared/route-guards';
import { consolePageLoaders, publicPageLoaders } from './route-pages';
import { consoleRoutes, publicRoutes } from './route-table';

/** Turns the route table into router objects; pages are code-split and load inside the layout's Suspense. */
function buildRoutes(): RouteObject[] {
  const publicPages: RouteObject[] = publicRoutes.map((route) => {
    const Page = lazy(publicPageLoaders[route.path]);
    return { path: route.path, element: <Page /> };
  });

  const consolePages: RouteObject[] = consoleRoutes.flatMap((route) => {
    const Page = lazy(consolePageLoaders[route.path]);
    return [route.path, ...(route.extraPaths ?? [])].map((path) => ({
      path,
      element: <ConsolePage route={route} page={Page} />,
    }));
  });

  return [
    {
      element: <AppLayout />,
      errorElement: <RouteError />,
      children: [...publicPages, ...consolePages, { path: '*', element: <CatchAllRoute /> }],
    },
  ];
}

export function createAppRouter() {
  return createBrowserRouter(buildRoutes());
}
