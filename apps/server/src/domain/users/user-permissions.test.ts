import { Role } from '@modelgate/contract';
import { describe, expect, it } from 'vitest';
import { decideManageAction, mayCreateRole, outranks } from './user-permissions.js';

describe('user permission rules', () => {
  it('lets admins act only below their level and root on everyone', () => {
    expect(outranks(Role.Admin, Role.Common)).toBe(true);
    expect(outranks(Role.Admin, Role.Admin)).toBe(false);
    expect(outranks(Role.Admin, Role.Root)).toBe(false);
    expect(outranks(Role.Root, Role.Root)).toBe(true);
    expect(outranks(Role.Common, Role.Common)).toBe(false);
  });

  it('creates users only below the creator', () => {
    expect(mayCreateRole(Role.Admin, Role.Common)).toBe(true);
    expect(mayCreateRole(Role.Admin, Role.Admin)).toBe(false);
    expect(mayCreateRole(Role.Root, Role.Admin)).toBe(true);
    expect(mayCreateRole(Role.Root, Role.Root)).toBe(false);
  });

  it('gives the new role and status of allowed actions', () => {
    const common = { role: Role.Common, status: 1 };
    expect(decideManageAction(Role.Root, common, 'promote')).toEqual({ allowed: true, role: Role.Admin, status: 1 });
    expect(decideManageAction(Role.Admin, common, 'disable')).toEqual({ allowed: true, role: Role.Common, status: 2 });
    expect(decideManageAction(Role.Root, { role: Role.Admin, status: 2 }, 'enable')).toEqual({ allowed: true, role: Role.Admin, status: 1 });
    expect(decideManageAction(Role.Root, { role: Role.Admin, status: 1 }, 'demote')).toEqual({ allowed: true, role: Role.Common, status: 1 });
  });
});
