import { LogKind, type LogKindValue, LogType, Role, UserStatus } from '@modelgate/contract';
import type { AppContext } from '../../app-context.js';
import { insertReturningId } from '../../db/index.js';
import { AppError, badRequest } from '../../errors/app-error.js';
import { hashPassword } from './password.js';
import { formatLogQuota, recordUserLog } from './user-logs.js';
import { isUniqueViolation, type BindingColumn, type UserRepository, type UserRow } from './user-repository.js';
import { randomAlphanumeric } from './user-service.js';
import { hasForbiddenCharacters, usernameKey, withoutForbiddenCharacters } from '../../lib/username.js';

export interface NewUser {
  username: string;
  /** Plain text; empty for accounts that only sign in through a third party. */
  password: string;
  displayName?: string;
  email?: string;
  role?: number;
  /** The invitation code the newcomer arrived with (`?aff=`), if any. */
  inviterAffCode?: string;
  bindings?: Partial<Record<BindingColumn, string>>;
}

export const usernameTakenError = () => badRequest('用户名已存在，或已注销', 'user:username_taken');
export const usernameCharactersError = () => badRequest('用户名包含不允许的字符', 'user:username_characters');

/**
 * Refuses a name with invisible or malformed characters, and one that reads the same as another
 * user's (see usernameKey). Every path that creates or renames a user calls this; the unique index
 * on username_key catches the race between two of them.
 */
export async function assertUsernameAvailable(repository: UserRepository, username: string, exceptUserId?: number): Promise<void> {
  if (hasForbiddenCharacters(username)) throw usernameCharactersError();
  if (await repository.usernameTaken(username, exceptUserId)) throw usernameTakenError();
}

const AFF_CODE_LENGTH = 4;
const INSERT_ATTEMPTS = 4;

/**
 * Creates an account the way new-api does: QuotaForNewUser on the balance; with a valid
 * invitation code also QuotaForInvitee on the balance, while the inviter's aff_count rises and
 * QuotaForInviter goes to its aff_quota and aff_history. The rows and their log lines are
 * written in one transaction.
 */
export async function createUser(context: AppContext, input: NewUser): Promise<UserRow> {
  const { db, options, users } = context;
  const repository = users.repository;
  await assertUsernameAvailable(repository, input.username);
  const inviter = input.inviterAffCode ? await repository.findLiveByAffCode(input.inviterAffCode) : undefined;
  const newUserQuota = options.number('QuotaForNewUser');
  const inviteeQuota = inviter ? options.number('QuotaForInvitee') : 0;
  const inviterQuota = inviter ? options.number('QuotaForInviter') : 0;
  const password = input.password === '' ? '' : await hashPassword(input.password);

  for (let attempt = 1; ; attempt += 1) {
    try {
      const id = await db.kysely.transaction().execute(async (trx) => {
        const userId = await insertReturningId(
          db,
          'users',
          {
            username: input.username,
            username_key: usernameKey(input.username),
            password,
            // A provider's profile name may carry what no typed name may (the routes refuse those).
            display_name: withoutForbiddenCharacters(input.displayName ?? '').trim() || input.username,
            email: input.email ?? '',
            role: input.role ?? Role.Common,
            status: UserStatus.Enabled,
            quota: newUserQuota + inviteeQuota,
            aff_code: randomAlphanumeric(AFF_CODE_LENGTH),
            inviter_id: inviter ? Number(inviter.id) : 0,
            created_at: Math.floor(Date.now() / 1000),
            ...input.bindings,
          },
          trx,
        );
        const log = (target: { id: number; username: string }, content: string, kind: LogKindValue, quota: number) =>
          recordUserLog(trx, { userId: target.id, username: target.username, type: LogType.System, content, other: { kind, quota } });
        const created = { id: userId, username: input.username };
        if (newUserQuota > 0) await log(created, `新用户注册赠送 ${formatLogQuota(options, newUserQuota)}`, LogKind.RegisterGift, newUserQuota);
        if (inviter) {
          if (inviteeQuota > 0) await log(created, `使用邀请码赠送 ${formatLogQuota(options, inviteeQuota)}`, LogKind.InviteeGift, inviteeQuota);
          await repository.creditInviter(Number(inviter.id), inviterQuota, trx);
          if (inviterQuota > 0) {
            await log(
              { id: Number(inviter.id), username: inviter.username },
              `邀请用户赠送 ${formatLogQuota(options, inviterQuota)}`,
              LogKind.InviterReward,
              inviterQuota,
            );
          }
        }
        return userId;
      });
      const row = await repository.findById(id);
      if (!row) throw new AppError('user:vanished', 'the new user could not be read back', { status: 500 });
      return row;
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      // Either the name was taken meanwhile, or the random invitation code collided: retry that.
      if (await repository.usernameTaken(input.username)) throw usernameTakenError();
      if (attempt >= INSERT_ATTEMPTS) throw error;
    }
  }
}

/**
 * A free username for an account made by a third-party sign-in: `github_<next id>` as new-api
 * names them, skipping names already in use.
 */
export async function nextProviderUsername(context: AppContext, prefix: string): Promise<string> {
  const repository = context.users.repository;
  let candidate = (await repository.maxId()) + 1;
  while (await repository.usernameTaken(`${prefix}_${candidate}`)) candidate += 1;
  return `${prefix}_${candidate}`;
}
