import { Role, UserStatus } from '@modelgate/contract';

/**
 * Who may do what to whom in user management (spec 01 §6, with new-api's messages). Pure
 * functions so the whole matrix is tested as a table.
 */
export const MANAGE_ACTIONS = ['promote', 'demote', 'disable', 'enable', 'delete', 'add_quota'] as const;
export type ManageAction = (typeof MANAGE_ACTIONS)[number];

export interface Refusal {
  allowed: false;
  code: string;
  message: string;
}

export type ManageDecision = { allowed: true; role: number; status: number } | Refusal;

const refuse = (code: string, message: string): Refusal => ({ allowed: false, code, message });

export const SAME_OR_HIGHER_UPDATE = '无权更新同权限等级或更高权限等级的用户信息';
export const SAME_OR_HIGHER_READ = '无权获取同级或更高等级用户的信息';

/**
 * An administrator acts only on users below its own level; the super administrator acts on
 * everyone, itself included (the action rules below still protect it).
 */
export const outranks = (actorRole: number, targetRole: number): boolean => actorRole === Role.Root || actorRole > targetRole;

/** Users may only be created below the creator's own level. */
export const mayCreateRole = (actorRole: number, newRole: number): boolean => newRole < actorRole;

/** What `action` by an actor of `actorRole` does to the target: its new role and status, or why not. */
export function decideManageAction(actorRole: number, target: { role: number; status: number }, action: ManageAction): ManageDecision {
  if (!outranks(actorRole, target.role)) return refuse('user:same_or_higher_level', SAME_OR_HIGHER_UPDATE);
  const targetIsRoot = target.role === Role.Root;
  switch (action) {
    case 'disable':
      if (targetIsRoot) return refuse('user:cannot_disable_root', '无法禁用超级管理员用户');
      return { allowed: true, role: target.role, status: UserStatus.Disabled };
    case 'enable':
      return { allowed: true, role: target.role, status: UserStatus.Enabled };
    case 'delete':
      if (targetIsRoot) return refuse('user:cannot_delete_root', '无法删除超级管理员用户');
      return { allowed: true, role: target.role, status: target.status };
    case 'promote':
      if (actorRole !== Role.Root) return refuse('user:admin_cannot_promote', '普通管理员用户无法提升其他用户为管理员');
      if (target.role >= Role.Admin) return refuse('user:already_admin', '该用户已经是管理员');
      return { allowed: true, role: Role.Admin, status: target.status };
    case 'demote':
      if (targetIsRoot) return refuse('user:cannot_demote_root', '无法降级超级管理员用户');
      if (target.role === Role.Common) return refuse('user:already_common', '该用户已经是普通用户');
      return { allowed: true, role: Role.Common, status: target.status };
    case 'add_quota':
      return { allowed: true, role: target.role, status: target.status };
    default: {
      const unreachable: never = action;
      return refuse('request:invalid_parameter', `未知的操作：${String(unreachable)}`);
    }
  }
}
