import { describe, expect, it } from 'vitest';
import type { SystemStatus } from './features/status/types';
import { consolePageLoaders, publicPageLoaders } from './route-pages';
import { consoleRoutes, isProtectedPath, publicRoutes, visibleConsoleRoutes } from './route-table';

const everythingOn = { enable_data_export: true, enable_drawing: true, enable_task: true } as SystemStatus;

describe('the route table', () => {
  it('gives every screen a page to load, and every page a screen', () => {
    expect(Object.keys(consolePageLoaders).sort()).toEqual(consoleRoutes.map((route) => route.path).sort());
    expect(Object.keys(publicPageLoaders).sort()).toEqual(publicRoutes.map((route) => route.path).sort());
  });

  it('lists the side navigation in the order of spec 02 §2, admin screens for admins only', () => {
    expect(visibleConsoleRoutes({ admin: true }, everythingOn).map((route) => route.path)).toEqual([
      '/playground',
      '/channel',
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
    ]);
    const forUsers = visibleConsoleRoutes({ admin: false }, {} as SystemStatus).map((route) => route.path);
    expect(forUsers).toEqual(['/playground', '/token', '/topup', '/log', '/setting']);
  });

  it('sends signed-out visitors of console paths to sign in, not visitors of public pages', () => {
    expect(isProtectedPath('/channel/edit/3')).toBe(true);
    expect(isProtectedPath('/chat2link')).toBe(true);
    expect(isProtectedPath('/pricing')).toBe(false);
    expect(isProtectedPath('/tokenizer')).toBe(false);
  });

  it('renders each screen’s icon as a React element', () => {
    for (const route of consoleRoutes) expect(route.icon).toMatchObject({ type: expect.anything() });
  });
});
