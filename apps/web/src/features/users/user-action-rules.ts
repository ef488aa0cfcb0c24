import { Role } from '@modelgate/contract';

/** The row actions the server decides on (POST /api/user/manage), plus editing the user. */
export type RowAction = 'promote' | 'demote' | 'disable' | 'enable' | 'delete' | 'edit';

/** Why the server would refuse an action; each is a `users:denied.*` text. */
export type DenyReason = 'sameOrHigher' | 'adminCannotPromote' | 'alreadyAdmin' | 'alreadyCommon' | 'rootDemote' | 'rootDisable' | 'rootDelete';

/**
 * Mirrors the server's rule (apps/server/src/domain/users/user-permissions.ts): an administrator
 * acts only on users below its own level, the super administrator on everyone.
 */
export const outranks = (actorRole: number, targetRole: number): boolean => actorRole === Role.Root || actorRole > targetRole;

/**
 * Why `action` on `target` by an actor of `actorRole` would be refused, or null when the server
 * accepts it; the console disables the button and shows the reason instead of letting the server say no.
 */
export function denyReason(actorRole: number, target: { role: number; status: number }, action: RowAction): DenyReason | null {
  if (!outranks(actorRole, target.role)) return 'sameOrHigher';
  const targetIsRoot = target.role === Role.Root;
  switch (action) {
    case 'promote':
      if (actorRole !== Role.Root) return 'adminCannotPromote';
      return target.role >= Role.Admin ? 'alreadyAdmin' : null;
    case 'demote':
      if (targetIsRoot) return 'rootDemote';
      return target.role === Role.Common ? 'alreadyCommon' : null;
    case 'disable':
      return targetIsRoot ? 'rootDisable' : null;
    case 'delete':
      return targetIsRoot ? 'rootDelete' : null;
    case 'enable':
    case 'edit':
      return null;
    default: {
      const unreachable: never = action;
      return unreachable;
    }
  }
}
