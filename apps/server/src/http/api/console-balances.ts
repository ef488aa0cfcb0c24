import { LeaseKind } from '../../domain/billing/lease-book.js';
import type { PublicUser, WireToken } from '@modelgate/contract';
import type { SpendableQuota } from '../../domain/billing/spendable-quota.js';

/** Users as the console shows them: quota and used_quota with the relay's leases and unwritten charges counted in. */
export async function withSpendableQuota(balances: SpendableQuota, users: PublicUser[]): Promise<PublicUser[]> {
  const current = await balances.of(
    LeaseKind.User,
    users.map((user) => user.id),
  );
  return users.map((user) => {
    const now = current.get(user.id);
    return now ? { ...user, quota: now.balance, used_quota: now.used } : user;
  });
}

/** Tokens likewise: a limited token's remain_quota and every token's used_quota. */
export async function withSpendableRemain(balances: SpendableQuota, tokens: WireToken[]): Promise<WireToken[]> {
  const current = await balances.of(
    LeaseKind.Token,
    tokens.map((token) => token.id),
  );
  return tokens.map((token) => {
    const now = current.get(token.id);
    if (!now) return token;
    return { ...token, remain_quota: token.unlimited_quota ? token.remain_quota : now.balance, used_quota: now.used };
  });
}
