import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFreshDb, DIALECTS, type FreshDb } from '../../test-support/dialects.js';
import { OptionService } from '../options/option-service.js';
import { ResponseStore } from './response-store.js';

/**
 * Kept Responses turns on every database: a conversation is read back oldest item first by
 * following the turns, from another node's store through the database; only its owner may
 * continue it; a turn past ResponsesRetentionHours is refused and then deleted; with a retention of
 * 0 nothing is kept and the refusal names the option.
 */
describe.each(DIALECTS)('ResponseStore on %s', (dialect) => {
  let fresh: FreshDb;
  let options: OptionService;
  let clock = Date.UTC(2026, 10, 28, 12, 0, 0);
  const now = () => clock;
  const logger = pino({ level: 'silent' });

  beforeAll(async () => {
    fresh = await createFreshDb(dialect);
    options = new OptionService(fresh.db);
    await options.refresh();
  });
  afterAll(async () => fresh?.drop());

  const user = (text: string) => ({ type: 'message', role: 'user', content: text });
  const answer = (text: string) => ({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] });

  it('reads a conversation back in order, on another node through the database, for its owner only', async () => {
    const writer = new ResponseStore(fresh.db, options, logger, now);
    writer.save({ id: 'resp_a', userId: 7, previousId: '', model: 'm', items: [user('one'), answer('1')] });
    writer.save({ id: 'resp_b', userId: 7, previousId: 'resp_a', model: 'm', items: [user('two'), answer('2')] });
    writer.save({ id: 'resp_c', userId: 7, previousId: 'resp_b', model: 'm', items: [user('three'), answer('3')] });
    expect(await writer.conversation('resp_c', 7)).toEqual({
      items: [user('one'), answer('1'), user('two'), answer('2'), user('three'), answer('3')],
    });
    await writer.flush();

    const reader = new ResponseStore(fresh.db, options, logger, now);
    expect(await reader.conversation('resp_b', 7)).toEqual({ items: [user('one'), answer('1'), user('two'), answer('2')] });
    expect(await reader.conversation('resp_b', 8)).toEqual({ problem: expect.stringContaining("Previous response with id 'resp_b' not found") });
    expect(await reader.conversation('resp_missing', 7)).toEqual({ problem: expect.stringContaining('not found') });
  });

  it('refuses a turn past its retention, deletes it, and keeps nothing at a retention of 0', async () => {
    await options.set('ResponsesRetentionHours', '2');
    const store = new ResponseStore(fresh.db, options, logger, now);
    store.save({ id: 'resp_old', userId: 9, previousId: '', model: 'm', items: [user('old')] });
    await store.flush();
    clock += 3 * 3600 * 1000;
    store.save({ id: 'resp_new', userId: 9, previousId: 'resp_old', model: 'm', items: [user('new')] });
    await store.flush();
    expect(await store.conversation('resp_new', 9)).toEqual({ problem: expect.stringContaining('an earlier turn of it (resp_old) has expired') });
    const deleted = await store.deleteExpired();
    expect(deleted).toBeGreaterThanOrEqual(1);
    const left = await fresh.db.kysely.selectFrom('stored_responses').select('id').execute();
    expect(left.map((row) => row.id)).toContain('resp_new');
    expect(left.map((row) => row.id)).not.toContain('resp_old');

    await options.set('ResponsesRetentionHours', '0');
    store.save({ id: 'resp_off', userId: 9, previousId: '', model: 'm', items: [user('off')] });
    await store.flush();
    expect(await fresh.db.kysely.selectFrom('stored_responses').select('id').where('id', '=', 'resp_off').execute()).toEqual([]);
    expect(await store.conversation('resp_new', 9)).toEqual({ problem: expect.stringContaining('ResponsesRetentionHours is 0') });
    await options.set('ResponsesRetentionHours', '24');
  });

  it('stores a long turn whole (a tool output of 200 KB)', async () => {
    const store = new ResponseStore(fresh.db, options, logger, now);
    const output = 'x'.repeat(200_000);
    store.save({ id: 'resp_long', userId: 3, previousId: '', model: 'm', items: [{ type: 'function_call_output', call_id: 'c', output }] });
    await store.flush();
    const reader = new ResponseStore(fresh.db, options, logger, now);
    expect(await reader.conversation('resp_long', 3)).toEqual({ items: [{ type: 'function_call_output', call_id: 'c', output }] });
  });
});
