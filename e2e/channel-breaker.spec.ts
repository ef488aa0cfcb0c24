import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test, type APIRequestContext } from '@playwright/test';
import { apiSession, dataOf, signInBrowser } from './support/console-session';

/**
 * The circuit breaker beside a channel's status: an upstream that answers 500 to everything, a
 * few relayed requests pinned to its channels, and the tags (熔断中 / 探测中) with their reasons.
 */

let root: APIRequestContext;
let broken: Server;
let brokenUrl = '';
let tokenId: number | undefined;
const run = Date.now().toString(36);

test.beforeAll(async () => {
  root = (await apiSession('root', '123456')).api;
  broken = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(500, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { message: 'upstream overloaded', type: 'server_error' } }));
    });
  });
  await new Promise<void>((resolve) => broken.listen(0, '127.0.0.1', resolve));
  brokenUrl = `http://127.0.0.1:${(broken.address() as AddressInfo).port}`;
});

test.afterAll(async () => {
  if (root) {
    const leftovers = await dataOf<{ items: { id: number }[] }>(await root.get('/api/channel/search', { params: { keyword: run, page_size: 100 } }));
    const ids = leftovers.items.map((channel) => channel.id);
    if (ids.length > 0) await dataOf(await root.post('/api/channel/batch', { data: { ids } }));
    if (tokenId !== undefined) await dataOf(await root.delete(`/api/token/${tokenId}`));
    await setOption('ChannelBreakerFailureThreshold', '5');
    await setOption('ChannelBreakerCooldownSeconds', '30');
    await root.dispose();
  }
  await new Promise<void>((resolve) => broken?.close(() => resolve()));
});

async function setOption(key: string, value: string): Promise<void> {
  await dataOf(await root.put('/api/option/', { data: { key, value } }));
}

/** A channel on the broken upstream, in a group no other spec routes through, opened by two failures. */
async function openedChannel(name: string, apiKey: string): Promise<number> {
  const channel = await dataOf<{ id: number }>(
    await root.post('/api/channel/', { data: { type: 1, name, group: 'vip', models: 'gpt-4o-mini', base_url: brokenUrl, key: `sk-breaker-${run}` } }),
  );
  for (let attempt = 0; attempt < 2; attempt += 1) {
    // sk-<key>-<channel id>: an administrator's request pinned to that channel.
    const reply = await root.post('/v1/chat/completions', {
      headers: { Authorization: `Bearer sk-${apiKey}-${channel.id}` },
      data: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] },
    });
    expect(reply.status()).toBe(500);
  }
  return channel.id;
}

test('a channel whose upstream keeps failing shows 熔断中, then 探测中 after its cool-down, with the reason', async ({ page }) => {
  await setOption('ChannelBreakerFailureThreshold', '2');
  const created = await dataOf<{ id: number }>(await root.post('/api/token/', { data: { name: `breaker-${run}`, unlimited_quota: true, expired_time: -1 } }));
  tokenId = created.id;
  // Token answers carry masked keys; the full key comes from its key route.
  const token = await dataOf<{ key: string }>(await root.post(`/api/token/${created.id}/key`));
  await setOption('ChannelBreakerCooldownSeconds', '600');
  const open = await openedChannel(`breaker-open-${run}`, token.key);
  await setOption('ChannelBreakerCooldownSeconds', '1');
  const probing = await openedChannel(`breaker-probe-${run}`, token.key);
  const listed = await dataOf<{ items: { id: number; breaker_state: string; breaker_reason: string }[] }>(
    await root.get('/api/channel/search', { params: { keyword: `breaker-open-${run}` } }),
  );
  expect(listed.items[0]).toMatchObject({ id: open, breaker_state: 'open', breaker_reason: 'upstream overloaded (HTTP 500)' });
  await page.waitForTimeout(1_200);

  await signInBrowser(page, 'root', '123456');
  await page.goto(`/channel?keyword=breaker-`);
  await expect(page.getByTestId(`channel-status-${open}`)).toHaveText('已启用');
  const openTag = page.getByTestId(`channel-breaker-${open}`);
  await expect(openTag).toHaveText('熔断中');
  await openTag.hover();
  const tooltip = page.locator('.semi-tooltip-content').filter({ hasText: '原因：' });
  await expect(tooltip).toContainText('upstream overloaded (HTTP 500)');
  await expect(tooltip).toContainText('恢复探测：');
  await expect(page.getByTestId(`channel-breaker-${probing}`)).toHaveText('探测中');
});
