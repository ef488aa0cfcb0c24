import type { AppContext } from '../../app-context.js';
import { LeaseKind } from '../billing/lease-book.js';
import { leasedElsewhereColumn } from '../billing/leased-elsewhere.js';
import type { UnflushedQuota } from '../billing/quota-ledger.js';
import { ChannelCache } from './channel-cache.js';
import { SyncLock } from './sync-lock.js';
import { TokenCache } from './token-cache.js';
import { UserCache } from './user-cache.js';

/**
 * Everything the relay hot path reads: tokens, users and the channel index, all in memory.
 *
 * Invalidation: a 'token' change event drops that key, a 'user' event drops that user, a
 * 'channels' event rebuilds the channel index; so a write is seen by the next request on the node
 * that made it. Every SYNC_FREQUENCY seconds all cached rows are re-read, which is how other
 * nodes' writes arrive.
 */
export class RelayCache {
  readonly lock = new SyncLock();
  readonly tokens: TokenCache;
  readonly users: UserCache;
  readonly channels: ChannelCache;

  constructor(
    private readonly context: AppContext,
    unflushed: UnflushedQuota,
    /** This process's lease holder id: its own lease is counted from memory. */
    holder: string,
  ) {
    this.tokens = new TokenCache(context.db, this.lock, (id) => unflushed.tokenQuota(id), leasedElsewhereColumn(LeaseKind.Token, 'tokens', holder));
    this.users = new UserCache(context.db, this.lock, (id) => unflushed.userQuota(id), leasedElsewhereColumn(LeaseKind.User, 'users', holder));
    this.channels = new ChannelCache(context.db, context.logger);
  }

  /** Subscribes to change events and loads the channel index; resolves once it is loaded. */
  start(): Promise<void> {
    const { changes } = this.context;
    changes.on('token', (key) => this.tokens.invalidate(key.startsWith('sk-') ? key.slice(3) : key));
    changes.on('user', (userId) => this.users.invalidate(Number(userId)));
    changes.on('channels', () => void this.channels.invalidate());
    return this.channels.invalidate();
  }

  /** Re-reads every cached token and user and rebuilds the channel index. */
  async sync(): Promise<void> {
    await this.lock.run(async () => {
      await this.tokens.reloadAllLocked();
      await this.users.reloadAllLocked();
    });
    await this.channels.invalidate();
  }
}
