import type { Logger } from 'pino';
import type { Db } from '../../db/db-types.js';
import type { OptionService } from '../options/option-service.js';

/**
 * Responses API turns the relay answered by converting them (a Claude, Gemini or chat-only channel
 * has no conversation state of its own), kept so that a later call of the same user may continue
 * one with `previous_response_id`, as OpenAI keeps them. A turn holds its own input items and the
 * answer's output items and names the turn before it, so a conversation costs its length once and
 * is read back by following the names. Turns live ResponsesRetentionHours (0: none are kept, and
 * previous_response_id is refused on those channels); a job deletes them after that.
 *
 * A saved turn is in this node's memory at once (the client's next call usually comes right
 * after the answer) and reaches the database in the background; another node finds it there.
 */

export interface StoredTurn {
  id: string;
  userId: number;
  previousId: string;
  model: string;
  /** Unix seconds. */
  createdAt: number;
  expiresAt: number;
  items: unknown[];
}

/** The conversation a previous_response_id names, oldest item first, or why it cannot be continued. */
export type Conversation = { items: unknown[] } | { problem: string };

/** Turns kept in a node's memory (most recent first out of it). */
const MEMORY_TURNS = 2000;
/** The most turns one conversation is followed back. */
const MAX_TURNS = 1000;

export class ResponseStore {
  private readonly recent = new Map<string, StoredTurn>();
  private writes = new Set<Promise<void>>();

  constructor(
    private readonly db: Db,
    private readonly options: OptionService,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /** How long a turn is kept, in seconds; 0 when storing is off. */
  get retentionSeconds(): number {
    return Math.max(0, Math.floor(this.options.number('ResponsesRetentionHours') * 3600));
  }

  /** Keeps a turn: in memory now, in the database soon. Never throws: a failed write is logged. */
  save(turn: Omit<StoredTurn, 'createdAt' | 'expiresAt'>): void {
    const retention = this.retentionSeconds;
    if (retention === 0) return;
    const createdAt = Math.floor(this.now() / 1000);
    const stored: StoredTurn = { ...turn, createdAt, expiresAt: createdAt + retention };
    this.remember(stored);
    const write = this.db.kysely
      .insertInto('stored_responses')
      .values({
        id: stored.id,
        user_id: stored.userId,
        previous_id: stored.previousId,
        model: stored.model,
        created_at: stored.createdAt,
        expires_at: stored.expiresAt,
        items: JSON.stringify(stored.items),
      })
      .execute()
      .then(
        () => undefined,
        (error: unknown) => this.logger.error({ err: error, responseId: stored.id }, 'a stored response could not be written'),
      );
    this.writes.add(write);
    void write.finally(() => this.writes.delete(write));
  }

  /** Resolves once every write begun so far has ended (shutdown, tests). */
  async flush(): Promise<void> {
    while (this.writes.size > 0) await Promise.all([...this.writes]);
  }

  /** The items of the conversation ending with turn `id`, for its owner `userId`. */
  async conversation(id: string, userId: number): Promise<Conversation> {
    if (this.retentionSeconds === 0) {
      return { problem: `previous_response_id is not available: this gateway keeps no responses (ResponsesRetentionHours is 0)` };
    }
    const turns: StoredTurn[] = [];
    let next = id;
    const nowSeconds = Math.floor(this.now() / 1000);
    while (next !== '' && turns.length < MAX_TURNS) {
      const turn = await this.turn(next);
      // Another user's response is as unknown as one that never existed.
      if (!turn || turn.userId !== userId || turn.expiresAt <= nowSeconds) {
        return next === id
          ? { problem: `Previous response with id '${id}' not found (stored responses are kept ${this.retentionSeconds / 3600} hours)` }
          : { problem: `Previous response with id '${id}' can no longer be continued: an earlier turn of it (${next}) has expired` };
      }
      turns.push(turn);
      next = turn.previousId;
    }
    const items: unknown[] = [];
    for (let index = turns.length - 1; index >= 0; index -= 1) items.push(...turns[index]!.items);
    return { items };
  }

  /** Deletes the turns past their retention; the number deleted. */
  async deleteExpired(): Promise<number> {
    const nowSeconds = Math.floor(this.now() / 1000);
    for (const [id, turn] of this.recent) if (turn.expiresAt <= nowSeconds) this.recent.delete(id);
    const result = await this.db.kysely.deleteFrom('stored_responses').where('expires_at', '<=', nowSeconds).executeTakeFirst();
    return Number(result.numDeletedRows ?? 0);
  }

  private async turn(id: string): Promise<StoredTurn | undefined> {
    const remembered = this.recent.get(id);
    if (remembered) return remembered;
    const row = await this.db.kysely.selectFrom('stored_responses').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) return undefined;
    let items: unknown[];
    try {
      const parsed: unknown = JSON.parse(row.items);
      items = Array.isArray(parsed) ? parsed : [];
    } catch {
      items = [];
    }
    const turn: StoredTurn = {
      id: row.id,
      userId: Number(row.user_id),
      previousId: row.previous_id,
      model: row.model,
      createdAt: Number(row.created_at),
      expiresAt: Number(row.expires_at),
      items,
    };
    this.remember(turn);
    return turn;
  }

  private remember(turn: StoredTurn): void {
    this.recent.delete(turn.id);
    this.recent.set(turn.id, turn);
    if (this.recent.size > MEMORY_TURNS) this.recent.delete(this.recent.keys().next().value!);
  }
}
