import type { Logger } from 'pino';
import type { Db } from '../../db/index.js';
import { ChannelIndex } from './channel-index.js';
import { toRelayChannel, type RelayChannel } from './relay-channel.js';

/**
 * The channel index in memory. A change rebuilds it from two queries (channels, abilities);
 * requests that arrive while a rebuild runs wait for it, so a write is visible to the next
 * request on this node. Other nodes rebuild on their periodic sync.
 */
export class ChannelCache {
  private index = ChannelIndex.empty();
  private rebuilding: Promise<void> | undefined;
  private dirty = false;

  constructor(
    private readonly db: Db,
    private readonly logger: Logger,
  ) {}

  /** The index, or a promise of it while a rebuild is under way. */
  current(): ChannelIndex | Promise<ChannelIndex> {
    return this.rebuilding ? this.rebuilding.then(() => this.index) : this.index;
  }

  /** Marks the index stale and rebuilds it; several calls in a row cost one or two rebuilds. */
  invalidate(): Promise<void> {
    this.dirty = true;
    this.rebuilding ??= this.rebuildWhileDirty();
    return this.rebuilding;
  }

  private async rebuildWhileDirty(): Promise<void> {
    try {
      while (this.dirty) {
        this.dirty = false;
        try {
          this.index = await this.load();
        } catch (error) {
          // Keep serving the previous index; the next change or sync tries again.
          this.logger.error({ err: error }, 'channel cache rebuild failed');
        }
      }
    } finally {
      this.rebuilding = undefined;
    }
  }

  private async load(): Promise<ChannelIndex> {
    const [rows, abilities] = await Promise.all([
      this.db.kysely.selectFrom('channels').selectAll().execute(),
      this.db.kysely.selectFrom('abilities').select(['group', 'model', 'channel_id']).where('enabled', '=', 1).execute(),
    ]);
    const byId = new Map<number, RelayChannel>();
    // Keys are opened here, once per rebuild: the relay's calls read them from memory as they are.
    for (const row of rows) byId.set(Number(row.id), toRelayChannel({ ...row, key: this.db.secrets.open(row.key) }));
    return new ChannelIndex(byId, abilities);
  }
}
