import { Pool } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import type { Db } from '../db/index.js';
import { chatCompletionBody, chatChunk, sendJson, usageChunk, MockUpstream } from '../relay/testing/mock-upstream.js';
import { createFreshDb } from '../test-support/dialects.js';
import { startBalancer, type Balancer } from '../test-support/haproxy.js';
import { checkBooks, seedBooks, type Seeded } from '../test-support/ledger-books.js';
import { freePort, startServerProcess, type ServerProcess } from '../test-support/server-process.js';

/**
 * Two real modelgate nodes on one PostgreSQL database and one Redis behind a real HAProxy running
 * docs/haproxy.cfg (issue 30, point 4), under a steady load of stream and whole calls:
 *  - node A is killed with SIGKILL: HAProxy's /readyz check takes it out within seconds, the only
 *    calls that fail are those A was serving at the kill, node B gives back A's leases once A has
 *    been silent for NODE_STALE_SECONDS, and every balance, counter and log agrees;
 *  - a rolling restart (SIGTERM A, start it again, then B) loses no call: each node drains for
 *    SHUTDOWN_DRAIN_DELAY seconds, HAProxy takes it out before its listener closes.
 */

/** A Redis database of the cluster's own, as in cluster-changes.test.ts. */
const REDIS_URL = (process.env.MODELGATE_TEST_REDIS ?? 'redis://127.0.0.1:6379/15').replace(/\/\d+$/, '/14');
const USAGE = { prompt_tokens: 100, completion_tokens: 100, total_tokens: 200 };
const STALE_SECONDS = 4;
const CONCURRENCY = 12;

/**
 * SHUTDOWN_DRAIN_DELAY of the nodes: 3 s is what README suggests; the test gives 5 so that on a
 * loaded machine (health checks answered late) HAProxy still takes a stopping node out within it
 * (3.1 s was seen once beside other tests).
 */
const DRAIN_SECONDS = 5;

interface Call {
  start: number;
  end: number;
  stream: boolean;
  status: number;
  /** The server HAProxy sent the call to (its x-served-by header); '' when no answer came. */
  servedBy: string;
  outcome: 'served' | 'refused' | 'failed';
  error?: string;
}

/** Keeps `CONCURRENCY` clients calling through the balancer (every third call a stream) until stopped, recording every call. */
function load(url: string, keys: string[]) {
  const pool = new Pool(url, { connections: CONCURRENCY });
  const calls: Call[] = [];
  let running = true;
  const loops = Array.from({ length: CONCURRENCY }, async (_, index) => {
    for (let round = 0; running; round += 1) {
      const stream = (index + round) % 3 === 0;
      const call: Call = { start: Date.now(), end: 0, stream, status: 0, servedBy: '', outcome: 'failed' };
      try {
        const response = await pool.request({
          method: 'POST',
          path: '/v1/chat/completions',
          headers: { authorization: `Bearer ${keys[(index + round) % keys.length]}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], stream, max_tokens: 100 }),
        });
        call.status = response.statusCode;
        call.servedBy = String(response.headers['x-served-by'] ?? '');
        const text = await response.body.text();
        if (response.statusCode === 200 && (!stream || text.includes('[DONE]'))) call.outcome = 'served';
        else if (response.statusCode === 403) call.outcome = 'refused';
        else call.error = text.slice(0, 200);
      } catch (error) {
        call.error = error instanceof Error ? error.message : String(error);
      }
      call.end = Date.now();
      calls.push(call);
    }
  });
  return {
    calls,
    served: (node: string) => calls.filter((call) => call.servedBy === node && call.outcome === 'served').length,
    async stop() {
      running = false;
      await Promise.all(loops);
      await pool.destroy();
    },
  };
}

/** Polls `check` every 50 ms; resolves with the milliseconds it took to hold, or fails after `limitMs`. */
async function within(limitMs: number, what: string, check: () => Promise<boolean>): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (await check()) return Date.now() - started;
    if (Date.now() - started > limitMs) throw new Error(`${what}: not within ${limitMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Balance a node's processes hold in leases, and whether one of them is still in the node list. */
async function heldBy(db: Db, nodeName: string) {
  const leases = await db.kysely.selectFrom('quota_leases').select(['amount']).where('holder', 'like', `${nodeName}/%`).execute();
  const listed = await db.kysely.selectFrom('relay_nodes').select('holder').where('name', '=', nodeName).execute();
  return { amount: leases.reduce((total, lease) => total + Number(lease.amount), 0), listed: listed.length > 0 };
}

interface Cluster {
  db: Db;
  seeded: Seeded;
  balancer: Balancer;
  nodes: Record<'node-a' | 'node-b', { port: number; env: Record<string, string>; process: ServerProcess }>;
  status(node: string): Promise<string>;
}

describe('two nodes behind HAProxy on PostgreSQL and Redis', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
    cleanups.length = 0;
  });

  async function startCluster(): Promise<Cluster> {
    const upstream = await new MockUpstream().start();
    cleanups.push(() => upstream.close());
    // Answers take 50 to 250 ms, streams six chunks 40 ms apart: calls are always in flight.
    upstream.respond(async (request, response) => {
      if (!request.json?.stream) {
        await new Promise((resolve) => setTimeout(resolve, 50 + Math.random() * 200));
        sendJson(response, 200, chatCompletionBody('ok', USAGE));
        return;
      }
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      for (let part = 0; part < 6; part += 1) {
        if (response.destroyed) return;
        response.write(chatChunk({ content: `w${part} ` }));
        await new Promise((resolve) => setTimeout(resolve, 40));
      }
      response.end(chatChunk({}, 'stop') + usageChunk(USAGE) + 'data: [DONE]\n\n');
    });
    const fresh = await createFreshDb('postgres');
    cleanups.push(() => fresh.drop());
    const seeded = await seedBooks(fresh.db, upstream.url, 'ha');
    const common = {
      SQL_DSN: fresh.sqlDsn,
      REDIS_CONN_STRING: REDIS_URL,
      SESSION_SECRET: 'haproxy-test',
      TRUSTED_PROXIES: '127.0.0.1',
      BATCH_UPDATE_INTERVAL: '1',
      NODE_STALE_SECONDS: String(STALE_SECONDS),
      QUOTA_WAIT_SECONDS: '1',
      SHUTDOWN_DRAIN_DELAY: String(DRAIN_SECONDS),
    };
    const [portA, portB] = [await freePort(), await freePort()];
    const envA = { ...common, NODE_NAME: 'node-a', NODE_TYPE: 'master' };
    const envB = { ...common, NODE_NAME: 'node-b', NODE_TYPE: 'slave' };
    // Both at once; if one fails to start, the other is stopped all the same.
    const starting = [startServerProcess(envA, { port: portA }), startServerProcess(envB, { port: portB })] as const;
    const started = await Promise.allSettled(starting);
    const failed = started.find((result) => result.status === 'rejected');
    if (failed) {
      for (const result of started) if (result.status === 'fulfilled') result.value.process.kill('SIGKILL');
      throw failed.reason;
    }
    const [a, b] = await Promise.all(starting);
    const nodes: Cluster['nodes'] = { 'node-a': { port: portA, env: envA, process: a }, 'node-b': { port: portB, env: envB, process: b } };
    cleanups.push(async () => {
      for (const node of Object.values(nodes)) node.process.process.kill('SIGKILL');
    });
    const balancer = await startBalancer([
      { name: 'node-a', port: portA },
      { name: 'node-b', port: portB },
    ]);
    cleanups.push(() => balancer.close());
    const status = async (node: string) => (await balancer.serverStatus()).get(node) ?? 'missing';
    await within(10_000, 'both nodes up', async () => (await status('node-a')) === 'UP' && (await status('node-b')) === 'UP');
    return { db: fresh.db, seeded, balancer, nodes, status };
  }

  /** Stops both nodes cleanly (their leases go back) and checks the books. */
  async function finalBooks(cluster: Cluster) {
    const running = Object.values(cluster.nodes).filter(({ process }) => process.process.exitCode === null && process.process.signalCode === null);
    await Promise.all(running.map((node) => node.process.stop()));
    // Each stopped cleanly: its last flush went through and it gave back what it held.
    for (const node of running) expect(node.process.process.exitCode, node.process.output.join('').slice(-2000)).toBe(0);
    return checkBooks(cluster.db, cluster.seeded);
  }

  it('takes a node killed with SIGKILL out within seconds; only its calls in flight fail; the survivor gives back its leases', async () => {
    const cluster = await startCluster();
    const { db, nodes, status } = cluster;
    const traffic = load(cluster.balancer.url, cluster.seeded.keys);
    // Both nodes serving, and A holding balance for its calls in flight.
    await within(20_000, 'both nodes serving', async () => traffic.served('node-a') >= 20 && traffic.served('node-b') >= 20);
    await within(5_000, 'node A holding leases', async () => (await heldBy(db, 'node-a')).amount > 0);

    // A dies some time after the signal (the kernel tears a large process down, and its sockets
    // close, in tens to hundreds of ms on a loaded machine): until then its listener still takes
    // connections and HAProxy may send it calls. The child's exit is reported once that is over.
    const killed = nodes['node-a'].process.process;
    const died = new Promise<number>((resolve) => killed.once('exit', () => resolve(Date.now())));
    const killedAt = Date.now();
    killed.kill('SIGKILL');
    const diedAt = await died;
    // A's last heartbeat (whole seconds): B may take it for dead only once it is NODE_STALE_SECONDS old.
    const lastBeat = Number(
      (await db.kysely.selectFrom('relay_nodes').select('heartbeat_at').where('name', '=', 'node-a').executeTakeFirstOrThrow()).heartbeat_at,
    );
    const detectionMs = await within(10_000, 'HAProxy marks node A down', async () => (await status('node-a')).startsWith('DOWN'));
    const detectedAt = killedAt + detectionMs;
    // A is silent from the kill; B gives its leases back once A's last heartbeat is NODE_STALE_SECONDS old.
    await within((STALE_SECONDS + 6) * 1000, "node B gives back node A's leases", async () => {
      const held = await heldBy(db, 'node-a');
      return !held.listed && held.amount === 0;
    });
    const reclaimMs = Date.now() - killedAt;
    const servedSince = traffic.served('node-b');
    await within(5_000, 'calls go on through node B', async () => traffic.served('node-b') >= servedSince + 20);
    await traffic.stop();

    const calls = traffic.calls;
    // HAProxy has logged every call (its log line comes when the call ends).
    const stats = await cluster.balancer.serverStats();
    // What HAProxy counted as cut by each server (a stream that stopped, an answer that never came).
    const cutBy = (node: string) => Number(stats.get(node)?.srv_abrt);
    const redispatched = Number(stats.get('node-a')?.wredis);
    // In flight at the kill: under way at some moment between the signal and A's exit.
    const inFlightAtKill = calls.filter((call) => call.start <= diedAt && call.end >= killedAt);
    const failed = calls.filter((call) => call.outcome === 'failed');
    const afterKill = calls.filter((call) => call.start > diedAt);
    const after = await finalBooks(cluster);
    console.log(
      `[haproxy kill] ${calls.length} calls: served ${calls.filter((call) => call.outcome === 'served').length}, refused (balance) ${calls.filter((call) => call.outcome === 'refused').length}, failed ${failed.length}; ` +
        `in flight at the kill ${inFlightAtKill.length}; streams cut ${failed.filter((call) => call.status === 200).length}, calls closed unanswered ${failed.filter((call) => call.status === 0).length}; ` +
        `sent again to B after A refused the connection ${redispatched}; A exited ${diedAt - killedAt} ms after the signal; A marked down after ${detectionMs} ms; ` +
        `${afterKill.length} calls after A's exit, ${afterKill.filter((call) => call.outcome === 'failed').length} failed (${afterKill
          .filter((call) => call.outcome === 'failed')
          .map((call) => `${call.start - diedAt} ms after it`)
          .join(', ')}); ` +
        `A's leases given back ${reclaimMs} ms after the kill (NODE_STALE_SECONDS=${STALE_SECONDS}); logged ${after.logs} calls, books out of balance: ${after.problems.length}`,
      after.problems,
    );
    expect(detectionMs).toBeLessThan(5_000);
    // The calls that failed are those A was serving when it died: all under way between the signal
    // and A's exit; a stream cut midway had its headers, which name A, and HAProxy counted it as cut
    // by A; B cut nothing. (A call A had not answered yet ends with its client connection closed:
    // HAProxy closes it silently, as after a keep-alive timeout, and usually does not count it; or,
    // when HAProxy had just sent it to the dying A, with HAProxy's own 502, never replayed, since A
    // may have passed it upstream.) Nothing that started after A's exit failed: a connection the dead
    // node refused was sent again to B.
    // One exception, seen once in tens of runs: a call sent in the instant after the kill on a
    // kept-alive connection HAProxy already held to A (http-reuse safe), before HAProxy had read
    // that connection's close; HAProxy does not send such a request again (A may have received
    // it), so it ends closed unanswered. Only that kind, and only within the first second.
    const sentIntoTheKill = (call: Call) => call.status === 0 && call.start > diedAt && call.start <= diedAt + 1_000 && call.start < detectedAt;
    const sentToTheDyingNode = (call: Call) => call.status === 502 && call.servedBy === 'node-a' && inFlightAtKill.includes(call);
    expect(failed.length).toBeGreaterThan(0);
    expect(failed.filter((call) => !inFlightAtKill.includes(call) && !sentIntoTheKill(call))).toEqual([]);
    expect(failed.filter((call) => call.status !== 0 && !(call.status === 200 && call.servedBy === 'node-a') && !sentToTheDyingNode(call))).toEqual([]);
    // HAProxy may also count as cut by A a call whose headers it had read but not yet passed on when
    // A died (the client saw its connection close unanswered): between the streams cut and all failures.
    expect(cutBy('node-a')).toBeGreaterThanOrEqual(failed.filter((call) => call.status === 200).length);
    expect(cutBy('node-a')).toBeLessThanOrEqual(failed.length);
    expect(cutBy('node-b')).toBe(0);
    expect(afterKill.filter((call) => call.outcome === 'failed' && !sentIntoTheKill(call))).toEqual([]);
    expect(afterKill.filter(sentIntoTheKill).length).toBeLessThanOrEqual(2);
    expect(calls.filter((call) => call.start > detectedAt && call.servedBy !== 'node-b')).toEqual([]);
    // Not before A had been silent for the stale period.
    expect(killedAt + reclaimMs).toBeGreaterThanOrEqual((lastBeat + STALE_SECONDS + 1) * 1000);
    expect(reclaimMs).toBeLessThan((STALE_SECONDS + 8) * 1000);
    expect(nodes['node-b'].process.output.join('')).toContain('gave back the balance held by relay processes that are gone');
    expect(after.problems).toEqual([]);
    expect(after.leased).toBe(0);
    expect(after.logs).toBeGreaterThan(0);
  }, 120_000);

  it('loses no call in a rolling restart (SIGTERM one node, start it again, then the other)', async () => {
    const cluster = await startCluster();
    const { nodes, status } = cluster;
    const traffic = load(cluster.balancer.url, cluster.seeded.keys);
    await within(20_000, 'both nodes serving', async () => traffic.served('node-a') >= 20 && traffic.served('node-b') >= 20);

    const figures: string[] = [];
    for (const name of ['node-a', 'node-b'] as const) {
      const node = nodes[name];
      const signalledAt = Date.now();
      const stopped = node.process.stop();
      const downMs = await within(10_000, `HAProxy marks ${name} down`, async () => (await status(name)).startsWith('DOWN'));
      await stopped;
      const exitedMs = Date.now() - signalledAt;
      expect(node.process.process.exitCode).toBe(0);
      // Taken out by its /readyz (503 while draining) before its listener closed.
      expect(downMs).toBeLessThan(DRAIN_SECONDS * 1000);
      node.process = await startServerProcess(node.env, { port: node.port });
      const servedBefore = traffic.served(name);
      const upMs = await within(10_000, `HAProxy marks ${name} up again`, async () => (await status(name)) === 'UP');
      await within(10_000, `${name} serving again`, async () => traffic.served(name) >= servedBefore + 10);
      figures.push(`${name}: down ${downMs} ms after SIGTERM, exited after ${exitedMs} ms, up ${upMs} ms after its restart`);
    }
    await traffic.stop();

    const calls = traffic.calls;
    const failed = calls.filter((call) => call.outcome === 'failed');
    const after = await finalBooks(cluster);
    console.log(
      `[haproxy rolling restart] ${calls.length} calls: served ${calls.filter((call) => call.outcome === 'served').length}, refused (balance) ${calls.filter((call) => call.outcome === 'refused').length}, failed ${failed.length}; ` +
        `${figures.join('; ')}; logged ${after.logs} calls, books out of balance: ${after.problems.length}`,
    );
    expect(failed, JSON.stringify(failed.slice(0, 5))).toEqual([]);
    expect(after.problems).toEqual([]);
    expect(after.leased).toBe(0);
    expect(after.logs).toBeGreaterThan(0);
  }, 120_000);
});
