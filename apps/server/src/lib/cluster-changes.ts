import { EventEmitter } from 'node:events';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';

/** The Redis channel every node publishes its changes on. */
export const CHANGES_CHANNEL = 'modelgate:changes';

/**
 * Notices that cached data changed, so caches drop what they hold at once: on the node that made
 * the change, and with REDIS_CONN_STRING on every other node too; the
 * periodic refresh (SYNC_FREQUENCY) stays as the safety net.
 */
export interface ChangeEvents {
  /** A channel or its abilities were created, updated or deleted. */
  channels: [];
  /** A token changed; the argument is its key without `sk-`. */
  token: [key: string];
  /** A user changed (status, role, group, quota set by an admin, deletion). */
  user: [userId: number];
  /** An option was written (its key); other nodes reload their options. */
  option: [key: string];
}

type ChangeName = keyof ChangeEvents;

const CHANGE_NAMES: ReadonlySet<string> = new Set<ChangeName>(['channels', 'token', 'user', 'option']);

interface ChangeMessage {
  /** The node that made the change (its own messages come back to it and are skipped). */
  node: string;
  event: ChangeName;
  arg?: string | number | undefined;
}

/**
 * The change notices of one process (tokens, users, channels and abilities, options), shared with
 * every other node through Redis when REDIS_CONN_STRING is set: a change emitted here is published,
 * and a change published by another node is emitted here as if it were local, so every node drops
 * what it cached at once instead of at its next SYNC_FREQUENCY poll (which stays as the safety net:
 * a message lost while Redis is down is caught up there). Without Redis it is a plain emitter.
 */
export class ClusterChanges extends EventEmitter<ChangeEvents> {
  private publisher: Redis | undefined;
  private subscriber: Redis | undefined;
  /** Set while a remote change is being emitted: it must not be published again. */
  private replaying = false;

  constructor(
    private readonly node: string,
    private readonly logger: Logger,
  ) {
    super();
  }

  override emit<K extends ChangeName>(event: K, ...args: ChangeEvents[K]): boolean {
    const handled = super.emit(event, ...(args as never));
    if (this.publisher && !this.replaying) {
      const message: ChangeMessage = { node: this.node, event, arg: args[0] as string | number | undefined };
      this.publisher.publish(CHANGES_CHANNEL, JSON.stringify(message)).catch((error: unknown) => {
        // The other nodes catch up at their next poll.
        this.logger.warn({ err: error, event }, 'could not publish a change to the other nodes');
      });
    }
    return handled;
  }

  /**
   * Joins the cluster: publishes through `redis`, and listens on a connection of its own (a Redis
   * connection in subscriber mode can do nothing else).
   */
  async connect(redis: Redis): Promise<void> {
    this.publisher = redis;
    const subscriber = redis.duplicate();
    this.subscriber = subscriber;
    subscriber.on('message', (channel: string, text: string) => {
      if (channel === CHANGES_CHANNEL) this.receive(text);
    });
    // A reconnecting subscriber subscribes again by itself (ioredis's autoResubscribe).
    subscriber.on('error', (error: unknown) => this.logger.warn({ err: error }, 'change subscription error'));
    await subscriber.subscribe(CHANGES_CHANNEL);
  }

  async close(): Promise<void> {
    this.publisher = undefined;
    const subscriber = this.subscriber;
    this.subscriber = undefined;
    if (subscriber) await subscriber.quit().catch(() => undefined);
  }

  private receive(text: string): void {
    let message: ChangeMessage;
    try {
      message = JSON.parse(text) as ChangeMessage;
    } catch {
      return;
    }
    if (message.node === this.node || !CHANGE_NAMES.has(message.event)) return;
    this.replaying = true;
    try {
      switch (message.event) {
        case 'channels':
          this.emit('channels');
          break;
        case 'token':
          if (typeof message.arg === 'string') this.emit('token', message.arg);
          break;
        case 'user':
          if (typeof message.arg === 'number') this.emit('user', message.arg);
          break;
        case 'option':
          if (typeof message.arg === 'string') this.emit('option', message.arg);
          break;
        default: {
          const unreachable: never = message.event;
          return unreachable;
        }
      }
    } catch (error) {
      this.logger.warn({ err: error, event: message.event }, 'applying another node’s change failed');
    } finally {
      this.replaying = false;
    }
  }
}
