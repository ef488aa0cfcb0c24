import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CALLS, callsAround, consoleCall, COST, inProcessCluster, login, seedPayer, sqliteCluster, START, type Cluster } from './testing/balance-cluster.js';

/**
 * Setting a balance while calls are under way (issue 10, point 5). Calls in flight hold part of the
 * balance in the relay's leases, outside `users.quota` / `tokens.remain_quota`; a balance that is set
 * must be what the payer can spend from then on, so once the calls settle and the leases go back the
 * balance is the value set minus what those calls cost, whichever node served them.
 */

function balanceSetSuite(start: () => Promise<Cluster>) {
  let cluster: Cluster;
  let root: Record<string, string>;

  beforeAll(async () => {
    cluster = await start();
    root = await login(cluster.urls[0]!, cluster.admin);
  });
  afterAll(() => cluster.close());

  const payer = (tokenQuota?: number) => seedPayer(cluster, tokenQuota);

  it.each([
    ['POST /api/user/manage (override)', 'POST', '/api/user/manage', (id: number) => ({ id, action: 'add_quota', mode: 'override', value: 1_000_000 })],
    ['PUT /api/user/', 'PUT', '/api/user/', (id: number) => ({ id, quota: 1_000_000 })],
  ] as const)('a user quota set by %s while calls are in flight ends as the value set minus their cost', async (_route, method, path, body) => {
    const payerOf = await payer();
    const books = await callsAround(cluster, payerOf, async () => {
      await consoleCall(cluster.urls[0]!, root, method, path, body(payerOf.userId));
      // What the console and the relay show at once on the node that made the change.
      const shown = await consoleCall<{ quota: number }>(cluster.urls[0]!, root, 'GET', `/api/user/${payerOf.userId}`);
      expect.soft(shown.quota).toBe(1_000_000);
      if (cluster.firstEnv) expect.soft((await cluster.firstEnv.runtime.cache.users.load(payerOf.userId))?.quota).toBe(1_000_000);
    });
    expect(books).toMatchObject({ userQuota: 1_000_000 - CALLS * COST, userUsed: CALLS * COST, logQuotaSum: CALLS * COST });
  });

  it('an amount added (manage, mode add) while calls are in flight is an increment: the start plus it, minus their cost', async () => {
    const payerOf = await payer();
    const books = await callsAround(cluster, payerOf, async () => {
      await consoleCall(cluster.urls[0]!, root, 'POST', '/api/user/manage', { id: payerOf.userId, action: 'add_quota', mode: 'add', value: 1_000_000 });
    });
    expect(books).toMatchObject({ userQuota: START + 1_000_000 - CALLS * COST, userUsed: CALLS * COST, logQuotaSum: CALLS * COST });
  });

  it('a limited token remain_quota set by its owner (PUT /api/token/) while calls are in flight ends as the value set minus their cost', async () => {
    const payerOf = await payer(START);
    const owner = await login(cluster.urls[0]!, payerOf.username);
    const books = await callsAround(cluster, payerOf, async () => {
      const edited = await consoleCall<{ remain_quota: number }>(cluster.urls[0]!, owner, 'PUT', '/api/token/', { id: payerOf.tokenId, remain_quota: 1_000 });
      expect.soft(edited.remain_quota).toBe(1_000);
      const shown = await consoleCall<{ remain_quota: number }>(cluster.urls[0]!, owner, 'GET', `/api/token/${payerOf.tokenId}`);
      expect.soft(shown.remain_quota).toBe(1_000);
      if (cluster.firstEnv) expect.soft((await cluster.firstEnv.runtime.cache.tokens.load(payerOf.key))?.remainQuota).toBe(1_000);
    });
    expect(books).toMatchObject({
      tokenRemain: 1_000 - CALLS * COST,
      tokenUsed: CALLS * COST,
      logQuotaSum: CALLS * COST,
      userQuota: START - CALLS * COST,
      tokenStatus: 1,
    });
  });

  it('an unlimited token edited while calls are in flight keeps remain_quota as written and the user pays', async () => {
    const payerOf = await payer();
    const owner = await login(cluster.urls[0]!, payerOf.username);
    const books = await callsAround(cluster, payerOf, async () => {
      await consoleCall(cluster.urls[0]!, owner, 'PUT', '/api/token/', { id: payerOf.tokenId, remain_quota: 1_000 });
    });
    expect(books).toMatchObject({
      tokenRemain: 1_000,
      tokenUsed: CALLS * COST,
      userQuota: START - CALLS * COST,
      userUsed: CALLS * COST,
      logQuotaSum: CALLS * COST,
    });
  });
}

describe.each([
  ['sqlite (two server processes on one file)', sqliteCluster],
  ['postgres (two nodes on one database)', () => inProcessCluster('postgres')],
  ['mysql (two nodes on one database)', () => inProcessCluster('mysql')],
] as const)('setting a balance while calls are in flight on %s', (_name, start) => balanceSetSuite(start));
