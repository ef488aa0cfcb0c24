import type { KyselyPlugin, QueryId } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFreshDb, DIALECTS, type FreshDb } from '../../test-support/dialects.js';
import { OptionService } from './option-service.js';

/** Holds back the rows of SELECTs while `slow` is set, as a busy database or network would. */
class SlowReads implements KyselyPlugin {
  slow = false;
  private readonly selects = new WeakSet<QueryId>();

  transformQuery: KyselyPlugin['transformQuery'] = ({ node, queryId }) => {
    if (this.slow && node.kind === 'SelectQueryNode') this.selects.add(queryId);
    return node;
  };

  transformResult: KyselyPlugin['transformResult'] = async ({ result, queryId }) => {
    if (this.selects.has(queryId)) await new Promise((resolve) => setTimeout(resolve, 150));
    return result;
  };
}

describe.each(DIALECTS)('options on %s', (dialect) => {
  let fresh: FreshDb;
  beforeAll(async () => {
    fresh = await createFreshDb(dialect);
  });
  afterAll(async () => {
    await fresh.drop();
  });

  it('a refresh whose read predates a write on this node does not put the old value back', async () => {
    const reads = new SlowReads();
    const options = new OptionService({ ...fresh.db, kysely: fresh.db.kysely.withPlugin(reads) });
    await options.set('SystemName', 'before');
    reads.slow = true;
    const refreshing = options.refresh();
    reads.slow = false;
    await new Promise((resolve) => setTimeout(resolve, 50));
    // The poll has read 'before' and not applied it yet; an administrator saves a new name.
    await options.set('SystemName', 'after');
    await refreshing;
    expect(options.string('SystemName')).toBe('after');
    // Writes from elsewhere (another node) still arrive at the next refresh.
    await fresh.db.kysely.updateTable('options').set({ value: 'elsewhere' }).where('key', '=', 'SystemName').execute();
    await options.refresh();
    expect(options.string('SystemName')).toBe('elsewhere');
  });
});
