import { DEFAULT_ROOT_PASSWORD, DEFAULT_ROOT_USERNAME, Role, UserStatus } from '@modelgate/contract';
import { randomBytes } from 'node:crypto';
import type { Db } from '../../db/index.js';
import { hashPassword } from './password.js';
import { UserRepository } from './user-repository.js';

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** Random alphanumeric string from the CSPRNG, without modulo bias. */
export function randomAlphanumeric(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      // 62 * 4 = 248: reject bytes at or above it so every character is equally likely.
      if (byte < 248 && out.length < length) out += ALPHANUMERIC[byte % 62];
    }
  }
  return out;
}

export class UserService {
  readonly repository: UserRepository;

  constructor(db: Db) {
    this.repository = new UserRepository(db);
  }

  /** On an empty database, creates the super administrator root / 123456. */
  async ensureRootUser(): Promise<boolean> {
    if ((await this.repository.count()) > 0) return false;
    await this.repository.insert({
      username: DEFAULT_ROOT_USERNAME,
      password: await hashPassword(DEFAULT_ROOT_PASSWORD),
      display_name: 'Root User',
      role: Role.Root,
      status: UserStatus.Enabled,
      quota: 100_000_000,
      aff_code: randomAlphanumeric(4),
    });
    return true;
  }

  /** Makes a new system access token for the user and returns it. */
  async resetAccessToken(userId: number): Promise<string> {
    const token = randomAlphanumeric(32);
    await this.repository.update(userId, { access_token: token });
    return token;
  }
}
