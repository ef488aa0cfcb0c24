import type { CachedToken } from '../domain/relay-cache/token-cache.js';
import type { CachedUser } from '../domain/relay-cache/user-cache.js';

/** Who is calling the relay, resolved from the key, all from memory once cached. */
export interface RelayCaller {
  token: CachedToken;
  user: CachedUser;
  /** The token's group when set, else the user's. */
  group: string;
  /** `sk-<key>-<channelId>`: an administrator's request for one channel. */
  pinnedChannelId: number | undefined;
  clientIp: string;
}
