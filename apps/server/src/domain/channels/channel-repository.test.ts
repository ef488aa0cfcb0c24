import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createFreshDb, DIALECTS, type FreshDb } from '../../test-support/dialects.js';
import type { ChannelWritable } from './channel-fields.js';
import { ChannelRepository } from './channel-repository.js';

const paging = { page: 1, pageSize: 50, offset: 0 };

const channel = (overrides: Partial<ChannelWritable>): ChannelWritable & { created_time: number } => ({
  type: 1,
  name: 'c',
  status: 1,
  group: 'default',
  models: 'gpt-4o',
  model_mapping: '',
  key: 'k',
  base_url: '',
  other: '',
  test_model: '',
  auto_ban: 1,
  status_code_mapping: '',
  tag: '',
  priority: 0,
  weight: 0,
  setting: '',
  openai_organization: '',
  param_override: '',
  header_override: '',
  remark: '',
  channel_info: '',
  created_time: 1,
  ...overrides,
});

describe.each(DIALECTS)('channel repository on %s', (dialect) => {
  let fresh: FreshDb;
  let repository: ChannelRepository;
  beforeAll(async () => {
    fresh = await createFreshDb(dialect);
    repository = new ChannelRepository(fresh.db);
  });
  afterAll(async () => fresh?.drop());
  beforeEach(async () => {
    await fresh.db.kysely.deleteFrom('abilities').execute();
    await fresh.db.kysely.deleteFrom('channels').execute();
  });

  const abilities = async () =>
    (await fresh.db.kysely.selectFrom('abilities').selectAll().execute())
      .map((row) => `${row.channel_id}:${row.group}/${row.model}/e${Number(row.enabled)}/p${Number(row.priority)}/w${Number(row.weight)}/${row.tag}`)
      .sort();
  const names = async (filter: object, options: { idSort?: boolean; tagMode?: boolean } = {}) =>
    (await repository.list({ filter, idSort: options.idSort ?? false, tagMode: options.tagMode ?? false, paging })).items.map((row) => row.name);

  it('inserts channels with their abilities in one transaction and filters literally', async () => {
    const [a, b, c] = await repository.insertMany([
      channel({ name: '100% Pure', group: 'vip_1,default', models: 'claude-3,gpt-4o', priority: 2, key: 'Key-A' }),
      channel({ name: 'plain', group: 'vipX1', models: 'gpt-4o', priority: 1, base_url: 'https://A.example.com' }),
      channel({ name: 'Other', group: 'default', models: 'o3', status: 2, tag: 't' }),
    ]);
    expect(await abilities()).toEqual(
      [
        `${a}:vip_1/claude-3/e1/p2/w0/`,
        `${a}:vip_1/gpt-4o/e1/p2/w0/`,
        `${a}:default/claude-3/e1/p2/w0/`,
        `${a}:default/gpt-4o/e1/p2/w0/`,
        `${b}:vipX1/gpt-4o/e1/p1/w0/`,
        `${c}:default/o3/e0/p0/w0/t`,
      ].sort(),
    );
    expect(await names({ group: 'vip_1' })).toEqual(['100% Pure']);
    expect(await names({ group: 'default' })).toEqual(['100% Pure', 'Other']);
    expect(await names({ keyword: '100%' })).toEqual(['100% Pure']);
    expect(await names({ keyword: 'PURE' })).toEqual(['100% Pure']);
    expect(await names({ keyword: 'a.example' })).toEqual(['plain']);
    expect(await names({ keyword: 'Key-A' })).toEqual(['100% Pure']);
    expect(await names({ keyword: String(b) })).toEqual(['plain']);
    expect(await names({ model: 'CLAUDE' })).toEqual(['100% Pure']);
    expect(await names({ status: 'disabled' })).toEqual(['Other']);
    expect(await names({}, { idSort: true })).toEqual(['Other', 'plain', '100% Pure']);
    expect(await names({}, { tagMode: true })).toEqual(['100% Pure', 'plain', 'Other']);
    const list = await repository.list({ filter: { type: 14 }, idSort: false, tagMode: false, paging });
    expect(list).toMatchObject({ items: [], total: 0, typeCounts: { 1: 3 } });
  });

  it('updates, retags, toggles by tag, edits by tag, rebuilds and deletes with abilities in step', async () => {
    const [a, b] = await repository.insertMany([channel({ name: 'a', tag: 'team' }), channel({ name: 'b', tag: 'team', status: 2 })]);
    await repository.update(a!, { models: 'm1,m2', priority: 4 });
    expect(await abilities()).toEqual([`${a}:default/m1/e1/p4/w0/team`, `${a}:default/m2/e1/p4/w0/team`, `${b}:default/gpt-4o/e0/p0/w0/team`]);

    expect(await repository.setStatusByTag('team', 1)).toBe(2);
    expect(await repository.setStatusByTag('team', 1)).toBe(2);
    expect((await abilities()).every((row) => row.includes('/e1/'))).toBe(true);
    expect(await repository.editByTag('team', { newTag: 'crew', weight: 5, group: 'vip' })).toBe(2);
    expect(await abilities()).toEqual([`${a}:vip/m1/e1/p4/w5/crew`, `${a}:vip/m2/e1/p4/w5/crew`, `${b}:vip/gpt-4o/e1/p0/w5/crew`]);
    expect(await repository.setTag([a!], 'solo')).toBe(1);
    expect(await repository.countByTag('crew')).toBe(1);

    expect(await repository.updateStatus(b!, 3, 'upstream said 401')).toBe(true);
    const row = await repository.findById(b!);
    expect(JSON.parse(row!.other_info)).toMatchObject({ status_reason: 'upstream said 401' });
    expect((await abilities()).filter((entry) => entry.startsWith(`${b}:`))).toEqual([`${b}:vip/gpt-4o/e0/p0/w5/crew`]);

    await fresh.db.kysely.deleteFrom('abilities').execute();
    expect(await repository.rebuildAbilities()).toEqual({ success: 2, fails: 0 });
    expect((await abilities()).length).toBe(3);

    // More rows than one insert chunk: every dialect must take the full set in one transaction.
    const groups = Array.from({ length: 40 }, (_, index) => `g${index}`).join(',');
    const models = Array.from({ length: 30 }, (_, index) => `m${index}`).join(',');
    const [wide] = await repository.insertMany([channel({ name: 'wide', group: groups, models })]);
    const countFor = async (id: number) =>
      Number(
        (
          await fresh.db.kysely
            .selectFrom('abilities')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('channel_id', '=', id)
            .executeTakeFirstOrThrow()
        ).n,
      );
    expect(await countFor(wide!)).toBe(1200);
    await repository.update(wide!, { models: `${models},m30` });
    expect(await countFor(wide!)).toBe(1240);
    expect(await repository.rebuildAbilities()).toEqual({ success: 3, fails: 0 });
    expect(await countFor(wide!)).toBe(1240);
    await repository.deleteMany([wide!]);

    expect(await repository.deleteDisabled()).toBe(1);
    expect(await repository.deleteMany([a!, 12345])).toBe(1);
    expect(await abilities()).toEqual([]);
  });
});
