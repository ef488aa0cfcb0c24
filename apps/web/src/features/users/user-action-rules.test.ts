import { Role, UserStatus } from '@modelgate/contract';
import { describe, expect, it } from 'vitest';
import { denyReason, type RowAction } from './user-action-rules';

const enabled = UserStatus.Enabled;
const root = { role: Role.Root, status: enabled };
const admin = { role: Role.Admin, status: enabled };
const common = { role: Role.Common, status: enabled };
const all: RowAction[] = ['promote', 'demote', 'disable', 'enable', 'delete', 'edit'];
const reasons = (actor: number, target: { role: number; status: number }) => Object.fromEntries(all.map((a) => [a, denyReason(actor, target, a)]));

describe('denyReason (what the server would refuse on a user row)', () => {
  it("on the super administrator's own row only editing is left", () => {
    expect(reasons(Role.Root, root)).toEqual({
      promote: 'alreadyAdmin',
      demote: 'rootDemote',
      disable: 'rootDisable',
      enable: null,
      delete: 'rootDelete',
      edit: null,
    });
  });

  it('an administrator can do nothing to another administrator or to root', () => {
    for (const target of [admin, root]) {
      for (const action of all) expect(denyReason(Role.Admin, target, action)).toBe('sameOrHigher');
    }
  });

  it('an administrator manages common users but cannot promote them', () => {
    expect(reasons(Role.Admin, common)).toEqual({
      promote: 'adminCannotPromote',
      demote: 'alreadyCommon',
      disable: null,
      enable: null,
      delete: null,
      edit: null,
    });
  });

  it('root promotes common users and demotes administrators', () => {
    expect(denyReason(Role.Root, common, 'promote')).toBeNull();
    expect(denyReason(Role.Root, admin, 'promote')).toBe('alreadyAdmin');
    expect(denyReason(Role.Root, admin, 'demote')).toBeNull();
    expect(denyReason(Role.Root, admin, 'delete')).toBeNull();
  });
});
