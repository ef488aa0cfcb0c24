import type { Db } from '../../db/index.js';
import {
  OPTION_DEFINITIONS,
  isOptionKey,
  isSecretOption,
  normaliseOptionValue,
  type BoolOptionKey,
  type JsonOptionKey,
  type NumberOptionKey,
  type OptionKey,
  type StringOptionKey,
} from '../../config/option-registry.js';

type Listener = (key: OptionKey, value: string) => void;

/**
 * The options, held in memory. Reads never touch the database; writes go to the database and
 * the local cache at once; other nodes pick them up on the next refresh (SYNC_FREQUENCY).
 */
export class OptionService {
  private readonly values = new Map<OptionKey, string>();
  private readonly parsedJson = new Map<OptionKey, unknown>();
  private readonly listeners: Listener[] = [];
  private readonly writeListeners: ((key: OptionKey) => void)[] = [];
  /** Counts this node's completed writes; `writtenAt` holds each key's latest count. */
  private writes = 0;
  private readonly writtenAt = new Map<OptionKey, number>();

  constructor(private readonly db: Db) {
    for (const [key, definition] of Object.entries(OPTION_DEFINITIONS)) {
      this.values.set(key as OptionKey, definition.default);
    }
  }

  /** Loads every stored option over the defaults; unknown or invalid stored rows are ignored. */
  async refresh(): Promise<void> {
    const before = this.writes;
    const rows = await this.db.kysely.selectFrom('options').select(['key', 'value']).execute();
    for (const row of rows) {
      if (!isOptionKey(row.key) || row.value === null) continue;
      // Written here while the rows were read: the read may predate the write, whose value stands.
      if ((this.writtenAt.get(row.key) ?? 0) > before) continue;
      let value: string;
      try {
        value = normaliseOptionValue(row.key, isSecretOption(row.key) ? this.db.secrets.open(row.value) : row.value);
      } catch {
        continue;
      }
      if (this.values.get(row.key) !== value) this.apply(row.key, value);
    }
  }

  /** Validates, stores and applies one option. Throws OptionValidationError on bad input. */
  async set(key: string, raw: unknown): Promise<void> {
    const value = normaliseOptionValue(key, raw);
    const optionKey = key as OptionKey;
    // Secrets are sealed on disk and held open in memory, so reading one costs nothing.
    const stored = isSecretOption(optionKey) ? this.db.secrets.seal(value) : value;
    const insert = this.db.kysely.insertInto('options').values({ key: optionKey, value: stored });
    // MySQL has no ON CONFLICT; the other two have no ON DUPLICATE KEY.
    await (this.db.dialect === 'mysql'
      ? insert.onDuplicateKeyUpdate({ value: stored })
      : insert.onConflict((conflict) => conflict.column('key').doUpdateSet({ value: stored }))
    ).execute();
    this.writes += 1;
    this.writtenAt.set(optionKey, this.writes);
    this.apply(optionKey, value);
    for (const written of this.writeListeners) written(optionKey);
  }

  onChange(listener: Listener): void {
    this.listeners.push(listener);
  }

  /** Called after `set` stored a value (not after a refresh): the cluster tells the other nodes. */
  onWrite(listener: (key: OptionKey) => void): void {
    this.writeListeners.push(listener);
  }

  raw(key: OptionKey): string {
    return this.values.get(key) ?? OPTION_DEFINITIONS[key].default;
  }

  number(key: NumberOptionKey): number {
    return Number(this.raw(key));
  }

  bool(key: BoolOptionKey): boolean {
    return this.raw(key) === 'true';
  }

  string(key: StringOptionKey): string {
    return this.raw(key);
  }

  json<T>(key: JsonOptionKey): T {
    if (!this.parsedJson.has(key)) this.parsedJson.set(key, JSON.parse(this.raw(key)));
    return this.parsedJson.get(key) as T;
  }

  /** Every option that may be shown to a root user: secrets are left out. */
  listPublic(): { key: OptionKey; value: string }[] {
    return (Object.keys(OPTION_DEFINITIONS) as OptionKey[]).filter((key) => !isSecretOption(key)).map((key) => ({ key, value: this.raw(key) }));
  }

  private apply(key: OptionKey, value: string): void {
    this.values.set(key, value);
    this.parsedJson.delete(key);
    for (const listener of this.listeners) listener(key, value);
  }
}
