import { presetLanguageAndTheme } from './wallet-helpers';
import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { apiSession, dataOf, signInBrowser } from './support/console-session';
import { BROKEN_PROMPT, MARKDOWN_PROMPT, MOCK_USAGE, SLOW_PROMPT, startMockUpstream, type MockUpstream } from './support/mock-upstream';

/**
 * The playground over the real server and POST /pg/chat/completions: a user with quota chats with
 * the mock upstream; replies stream in and render as Markdown, the conversation survives a
 * reload, stop ends a slow reply, a broken stream shows its error marked, and the calls are logged
 * as playground-<group> and paid from the user's quota.
 */

test.describe.configure({ mode: 'serial' });

const run = Date.now().toString(36).slice(-6);
const username = `pg${run}`;
const password = 'correct-horse';
const START_QUOTA = 50_000_000;
/** Served by the channel, but no ratio or price is set for it: the gateway refuses it before streaming. */
const UNPRICED_MODEL = `unpriced-${run}`;
let upstream: MockUpstream;
let root: APIRequestContext;
let user: APIRequestContext;
let channelId: number | undefined;

test.beforeAll(async () => {
  upstream = await startMockUpstream(['gpt-4o-mini', UNPRICED_MODEL]);
  root = (await apiSession('root', '123456')).api;
  // A group of its own: channels other specs leave behind never serve this user, and the log's token name is known.
  channelId = (
    await dataOf<{ id: number }>(
      await root.post('/api/channel/', {
        data: { type: 1, name: `pg-${run}`, group: username, models: `gpt-4o-mini,${UNPRICED_MODEL}`, base_url: upstream.url, key: 'sk-upstream-secret' },
      }),
    )
  ).id;
  const created = await dataOf<{ id: number }>(await root.post('/api/user/', { data: { username, password } }));
  await dataOf(await root.put('/api/user/', { data: { id: created.id, quota: START_QUOTA, group: username } }));
  user = (await apiSession(username, password)).api;
});

test.afterAll(async () => {
  if (root && channelId !== undefined) await root.delete(`/api/channel/${channelId}/`);
  await user?.dispose();
  await root?.dispose();
  await upstream?.close();
});

async function openPlayground(page: Page, language: 'zh' | 'en', theme: 'light' | 'dark'): Promise<void> {
  await presetLanguageAndTheme(page, language, theme);
  await signInBrowser(page, username, password);
  await page.goto('/playground');
}

const replies = (page: Page) => page.getByTestId('pg-message-assistant');
const questions = (page: Page) => page.getByTestId('pg-message-user');
const questionTexts = (page: Page) => questions(page).locator('.mg-pg-plain');

async function chooseModel(page: Page, model: string): Promise<void> {
  await page.getByTestId('pg-model').click();
  await page
    .locator('.semi-select-option')
    .filter({ hasText: new RegExp(`^${model}$`) })
    .click();
  await expect(page.getByTestId('pg-current-model')).toHaveText(model);
}

async function send(page: Page, text: string): Promise<void> {
  await page.locator('.mg-pg-composer textarea').fill(text);
  await page.locator('.mg-pg-composer textarea').press('Enter');
}

test('a reply streams in as Markdown, Shift+Enter makes a new line, and a reload keeps the conversation (zh, light)', async ({ page }) => {
  await openPlayground(page, 'zh', 'light');
  await expect(page.getByRole('heading', { name: '操练场' })).toBeVisible();
  await expect(page.locator('.mg-side-nav').getByText('操练场')).toBeVisible();
  // Defaults: gpt-4o-mini, the user's own group, max_tokens 0, temperature on the slider.
  await expect(page.getByTestId('pg-current-model')).toHaveText('gpt-4o-mini');
  await expect(page.getByTestId('pg-current-group')).toHaveText(username);
  await expect(page.getByRole('spinbutton', { name: '最大 Token 数 (max_tokens)' })).toHaveValue('0');
  await expect(page.getByTestId('pg-temperature-value')).toHaveText('0.7');
  await expect(page.getByText('发送一条消息，开始与模型对话')).toBeVisible();

  await send(page, `${MARKDOWN_PROMPT} show me code`);
  const first = replies(page).first();
  await expect(first).toHaveAttribute('data-status', 'complete');
  await expect(first.locator('pre code')).toHaveText('const answer = 42;');
  await expect(first.locator('strong')).toHaveText('code');
  await expect(first).toContainText('Done.');

  // The request the gateway passed upstream: system prompt first, the console-only fields gone.
  const call = upstream.seen.filter((seen) => seen.path === '/v1/chat/completions').at(-1)!;
  expect(call.body).toMatchObject({
    model: 'gpt-4o-mini',
    stream: true,
    temperature: 0.7,
    messages: [
      { role: 'system', content: 'You are a helpful assistant.' },
      { role: 'user', content: `${MARKDOWN_PROMPT} show me code` },
    ],
  });
  expect(call.body).not.toHaveProperty('group');
  expect(call.body).not.toHaveProperty('max_tokens');

  // Shift+Enter adds a line and sends nothing; Enter sends both lines.
  const input = page.locator('.mg-pg-composer textarea');
  await input.fill('line one');
  await input.press('Shift+Enter');
  await input.pressSequentially('line two');
  await expect(input).toHaveValue('line one\nline two');
  await expect(questions(page)).toHaveCount(1);
  await input.press('Enter');
  await expect(input).toHaveValue('');
  await expect(questions(page).nth(1)).toContainText('line one\nline two');
  await expect(replies(page).nth(1)).toHaveText(/Hello from the mock upstream\./);
  await expect(replies(page).nth(1)).toHaveAttribute('data-status', 'complete');
  // The second call carried the whole conversation.
  const second = upstream.seen.filter((seen) => seen.path === '/v1/chat/completions').at(-1)!;
  expect((second.body?.messages as unknown[]).length).toBe(4);
  await page.screenshot({ path: '.tmp/screens/playground-zh-light.png', fullPage: true });

  await page.reload();
  await expect(questions(page)).toHaveCount(2);
  await expect(replies(page).first().locator('pre code')).toHaveText('const answer = 42;');
  await expect(replies(page).nth(1)).toContainText('Hello from the mock upstream.');
});

test('stop ends a slow reply where it is; a broken stream and a refused call show their errors marked (zh, light)', async ({ page }) => {
  // A fresh browser: the conversation of the test above lives in another browser's storage.
  await openPlayground(page, 'zh', 'light');
  await expect(page.getByText('发送一条消息，开始与模型对话')).toBeVisible();

  await send(page, `${SLOW_PROMPT} take your time`);
  const slow = replies(page).nth(0);
  await expect(slow).toContainText('word2');
  await expect(page.getByTestId('pg-send')).toHaveCount(0);
  await page.getByTestId('pg-stop').click();
  await expect(slow).toHaveAttribute('data-status', 'stopped');
  await expect(slow.getByTestId('pg-status-stopped')).toHaveText('已停止');
  const stoppedText = await slow.locator('.mg-pg-markdown').innerText();
  await page.waitForTimeout(1_000);
  await expect(slow.locator('.mg-pg-markdown')).toHaveText(stoppedText);
  await expect(page.getByTestId('pg-send')).toBeVisible();

  // Text arrives, then the upstream drops: the gateway's error event ends the reply, marked.
  await send(page, `${BROKEN_PROMPT} please`);
  const broken = replies(page).nth(1);
  await expect(broken).toHaveAttribute('data-status', 'error');
  await expect(broken).toContainText('This answer will break');
  await expect(broken.getByTestId('pg-status-error')).toHaveText('错误');
  await expect(broken.getByTestId('pg-error')).toContainText('上游连接中断');

  // Refused before any stream (an OpenAI error body with a non-200 status): its message is the reply.
  await chooseModel(page, UNPRICED_MODEL);
  await send(page, 'hello?');
  const refused = replies(page).nth(2);
  await expect(refused).toHaveAttribute('data-status', 'error');
  await expect(refused.getByTestId('pg-error')).toContainText(`模型 ${UNPRICED_MODEL} 的倍率或价格未设置`);
  await page.screenshot({ path: '.tmp/screens/playground-zh-light-stop-error.png', fullPage: true });

  // The marks survive a reload, and the failed replies are not sent back to the model.
  await page.reload();
  await expect(replies(page).nth(0)).toHaveAttribute('data-status', 'stopped');
  await expect(replies(page).nth(1)).toHaveAttribute('data-status', 'error');
  await expect(replies(page).nth(1).getByTestId('pg-error')).toContainText('上游连接中断');
  await expect(replies(page).nth(2)).toHaveAttribute('data-status', 'error');
  await chooseModel(page, 'gpt-4o-mini');
  await send(page, 'and now?');
  await expect(replies(page).nth(3)).toContainText('Hello from the mock upstream.');
  const last = upstream.seen.filter((seen) => seen.path === '/v1/chat/completions').at(-1)!;
  const sent = last.body?.messages as { role: string; content: string }[];
  expect(sent.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'user', 'user', 'user']);
  expect(sent[2]!.content.trim()).toBe(stoppedText.trim());
});

test('the calls are logged as playground-<group> and paid from the user quota', async () => {
  type WireLog = { token_name: string; model_name: string; quota: number; is_stream: boolean; completion_tokens: number };
  let logs: WireLog[] = [];
  // Logs are written by the batch flush (BATCH_UPDATE_INTERVAL, 5 s by default). Calls so far:
  // markdown, hello, slow (stopped), broken, hello; the refused one never reached a channel.
  await expect
    .poll(
      async () => {
        const listed = await dataOf<{ items: WireLog[] }>(await user.get('/api/log/self', { params: { type: 2, page_size: 20 } }));
        logs = listed.items;
        return logs.length;
      },
      { timeout: 30_000 },
    )
    .toBe(5);
  for (const log of logs) expect(log).toMatchObject({ token_name: `playground-${username}`, model_name: 'gpt-4o-mini', is_stream: true });
  // The stopped reply was billed for the words it generated (counted), not the mock's usage figure.
  expect(logs.some((log) => log.completion_tokens > 0 && log.completion_tokens < MOCK_USAGE.completion_tokens)).toBe(true);
  const self = await dataOf<{ quota: number; used_quota: number }>(await user.get('/api/user/self'));
  const charged = logs.reduce((sum, log) => sum + log.quota, 0);
  expect(charged).toBeGreaterThan(0);
  expect(self.used_quota).toBe(charged);
  // The balance went down by exactly what the logs charged (leases held by the relay included).
  expect(self.quota).toBe(START_QUOTA - charged);
});

test('English and dark: the conversation is cleared after confirming (en, dark)', async ({ page }) => {
  await openPlayground(page, 'en', 'dark');
  await expect(page.getByRole('heading', { name: 'Playground' })).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Parameters' })).toBeVisible();
  await expect(page.getByTestId('pg-group')).toContainText(`${username} (Your group)`);
  await chooseModel(page, 'gpt-4o-mini');
  await send(page, `${MARKDOWN_PROMPT} once more`);
  await expect(replies(page).last().locator('pre code')).toHaveText('const answer = 42;');
  await page.screenshot({ path: '.tmp/screens/playground-en-dark.png', fullPage: true });

  await page.getByTestId('pg-clear').click();
  await expect(page.getByText('Clear this conversation?')).toBeVisible();
  await page.getByRole('button', { name: 'OK' }).click();
  await expect(questions(page)).toHaveCount(0);
  await expect(page.getByText('Send a message to start chatting with the model')).toBeVisible();
  await page.reload();
  await expect(page.getByText('Send a message to start chatting with the model')).toBeVisible();
  await expect(questions(page)).toHaveCount(0);
});

test('narrow screens fold the parameters above the chat (zh, dark)', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await openPlayground(page, 'zh', 'dark');
  await expect(page.getByRole('heading', { name: '操练场' })).toBeVisible();
  await expect(page.getByTestId('pg-settings')).toHaveCount(0);
  await page.getByTestId('pg-settings-toggle').click();
  await expect(page.getByTestId('pg-settings')).toBeVisible();
  const settingsBox = (await page.getByTestId('pg-settings').boundingBox())!;
  const chatBox = (await page.getByTestId('pg-messages').boundingBox())!;
  expect(settingsBox.y + settingsBox.height).toBeLessThanOrEqual(chatBox.y);
  await page.screenshot({ path: '.tmp/screens/playground-zh-dark-narrow.png', fullPage: true });
  await page.getByTestId('pg-settings-toggle').click();
  await expect(page.getByTestId('pg-settings')).toHaveCount(0);
  // Folded, the chat keeps most of the screen's height.
  const chat = (await page.locator('.mg-pg-chat').boundingBox())!;
  expect(chat.height).toBeGreaterThan(844 * 0.7);
  await send(page, 'hi');
  await expect(replies(page).last()).toContainText('Hello from the mock upstream.');
  await page.screenshot({ path: '.tmp/screens/playground-zh-dark-narrow-chat.png' });
});

test('several conversations stay apart across a reload; edit, regenerate, images, delete and the debug view (en, light, 1440)', async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await openPlayground(page, 'en', 'light');
  const calls = () => upstream.seen.filter((seen) => seen.path === '/v1/chat/completions');
  const list = page.getByTestId('pg-conversation');
  const names = page.getByTestId('pg-conversation-name');

  await send(page, 'alpha question');
  await expect(replies(page).first()).toHaveAttribute('data-status', 'complete');
  await expect(names.first()).toHaveText('alpha question');

  // A second conversation: empty, on top of the list, renamed.
  await page.getByTestId('pg-conversation-new').click();
  await expect(list).toHaveCount(2);
  await expect(questions(page)).toHaveCount(0);
  await expect(page.getByTestId('pg-active-title')).toHaveText('New conversation');
  await send(page, 'beta question');
  await expect(replies(page).first()).toHaveAttribute('data-status', 'complete');
  await list.first().getByTestId('pg-conversation-rename').click();
  await page.getByTestId('pg-conversation-title-input').fill('Beta notes');
  await page.getByTestId('pg-conversation-title-input').press('Enter');
  await expect(names).toHaveText(['Beta notes', 'alpha question']);

  await page.reload();
  await expect(names).toHaveText(['Beta notes', 'alpha question']);
  await expect(list.first()).toHaveAttribute('data-active', 'true');
  await expect(questionTexts(page)).toHaveText(['beta question']);
  await names.nth(1).click();
  await expect(questionTexts(page)).toHaveText(['alpha question']);

  // Edit and resend: the later question and its reply are dropped, the model sees the new wording only.
  await send(page, 'second question');
  await expect(replies(page)).toHaveCount(2);
  await expect(replies(page).nth(1)).toHaveAttribute('data-status', 'complete');
  await questions(page).first().hover();
  await questions(page).first().getByTestId('pg-message-edit').click();
  await page.getByTestId('pg-editor').locator('textarea').fill('alpha, edited');
  await page.getByTestId('pg-edit-send').click();
  await expect(questionTexts(page)).toHaveText(['alpha, edited']);
  await expect(replies(page)).toHaveCount(1);
  await expect(replies(page).first()).toHaveAttribute('data-status', 'complete');
  expect(calls().at(-1)!.body?.messages).toEqual([
    { role: 'system', content: 'You are a helpful assistant.' },
    { role: 'user', content: 'alpha, edited' },
  ]);

  // Regenerate asks the same again and replaces the reply.
  const before = calls().length;
  await replies(page).first().getByTestId('pg-message-regenerate').click();
  await expect.poll(() => calls().length).toBe(before + 1);
  await expect(replies(page)).toHaveCount(1);
  await expect(replies(page).first()).toHaveAttribute('data-status', 'complete');
  expect(calls().at(-1)!.body?.messages).toEqual(calls().at(-2)!.body?.messages);

  // An image URL goes as an image_url part after the text, and shows as a thumbnail.
  // The console's own logo: an http URL the browser can show (the model only sees the address).
  const imageUrl = new URL('/logo.svg', page.url()).href;
  await page.getByTestId('pg-image-toggle').click();
  await page.getByTestId('pg-image-url').fill('not a url');
  await page.getByTestId('pg-image-add').click();
  await expect(page.getByText('Enter an http(s) image URL')).toBeVisible();
  await page.getByTestId('pg-image-url').fill(imageUrl);
  await page.getByTestId('pg-image-add').click();
  await expect(page.getByTestId('pg-attachments').locator('img')).toHaveCount(1);
  await send(page, 'what is this?');
  await expect(replies(page).nth(1)).toHaveAttribute('data-status', 'complete');
  await expect(page.getByTestId('pg-attachments')).toHaveCount(0);
  await expect(questions(page).nth(1).getByTestId('pg-thumbnail').locator('img')).toHaveAttribute('src', imageUrl);
  expect((calls().at(-1)!.body?.messages as unknown[]).at(-1)).toEqual({
    role: 'user',
    content: [
      { type: 'text', text: 'what is this?' },
      { type: 'image_url', image_url: { url: imageUrl } },
    ],
  });

  // The debug view: the body sent, the status, the timings and the raw events.
  await page.getByTestId('pg-debug-toggle').click();
  const debug = page.locator('.mg-pg-debug');
  await expect(debug.getByTestId('pg-debug-status')).toHaveText('HTTP 200');
  await expect(debug.getByTestId('pg-debug-timing')).toContainText(/First token: \d+(\.\d+)? m?s · Total: \d+(\.\d+)? m?s/);
  const shown = JSON.parse(await debug.getByTestId('pg-debug-request').innerText()) as { messages: unknown[]; model: string };
  expect(shown.model).toBe('gpt-4o-mini');
  expect(shown.messages.at(-1)).toEqual((calls().at(-1)!.body?.messages as unknown[]).at(-1));
  await debug.getByRole('tab', { name: 'Response' }).click();
  await expect(debug.getByTestId('pg-debug-response')).toContainText('data: [DONE]');
  await expect(debug.getByTestId('pg-debug-response')).toContainText('"content":"the mock upstream."');
  await page.screenshot({ path: '.tmp/screens/playground-en-light-debug.png', animations: 'disabled' });

  // A custom body is sent as written (here not streamed); its whole answer is the debug response.
  await debug.getByRole('tab', { name: 'Request' }).click();
  await debug.getByTestId('pg-debug-edit').click();
  await debug.getByTestId('pg-debug-editor').fill('{"model":"gpt-4o-mini","stream":false,"messages":[]}');
  await debug.getByTestId('pg-debug-send').click();
  await expect(page.getByText('The request needs a non-empty messages array')).toBeVisible();
  await debug.getByTestId('pg-debug-editor').fill('{"model":"gpt-4o-mini","stream":false,"messages":[{"role":"user","content":"custom"}]}');
  await debug.getByTestId('pg-debug-send').click();
  await expect(replies(page)).toHaveCount(3);
  await expect(replies(page).nth(2)).toHaveAttribute('data-status', 'complete');
  await expect(replies(page).nth(2)).toContainText('Hello from the mock upstream.');
  expect(calls().at(-1)!.body).toMatchObject({ stream: false, messages: [{ role: 'user', content: 'custom' }] });
  await expect(debug.getByTestId('pg-debug-response')).toContainText('"object": "chat.completion"');
  await debug.locator('.semi-sidesheet-close').click();
  await expect(debug).toBeHidden();

  // Deleting a question takes its reply; deleting a conversation leaves the other.
  await questions(page).nth(1).hover();
  await questions(page).nth(1).getByTestId('pg-message-delete').click();
  await page.getByRole('button', { name: 'OK' }).click();
  await expect(questionTexts(page)).toHaveText(['alpha, edited']);
  await expect(replies(page)).toHaveCount(2);
  await list.first().hover();
  await list.first().getByTestId('pg-conversation-delete').click();
  await page.getByRole('button', { name: 'OK' }).click();
  await expect(names).toHaveText(['alpha, edited']);
  await expect(questionTexts(page)).toHaveText(['alpha, edited']);
  await page.screenshot({ path: '.tmp/screens/playground-en-light-conversations.png' });
});

test('on a phone the conversations open in a drawer, the debug view from the bottom; a pasted picture is not stored (zh, dark, 390)', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await openPlayground(page, 'zh', 'dark');
  await send(page, '第一个对话');
  await expect(replies(page).first()).toHaveAttribute('data-status', 'complete');
  await page.getByTestId('pg-conversations-open').click();
  const sheet = page.locator('.mg-pg-list-sheet');
  await expect(sheet.getByTestId('pg-conversation-name')).toHaveText(['第一个对话']);
  await page.screenshot({ path: '.tmp/screens/playground-zh-dark-narrow-list.png', animations: 'disabled' });
  await sheet.getByTestId('pg-conversation-new').click();
  await expect(sheet).toBeHidden();
  await expect(page.getByTestId('pg-active-title')).toHaveText('新对话');
  await expect(page.getByTestId('pg-conversations-open')).toHaveText('对话列表（2）');
  await page.getByTestId('pg-conversations-open').click();
  await sheet.getByTestId('pg-conversation-name').nth(1).click();
  await expect(questionTexts(page)).toHaveText(['第一个对话']);

  const debug = page.locator('.mg-pg-debug');
  await page.getByTestId('pg-debug-toggle').click();
  await expect(debug.getByTestId('pg-debug-status')).toHaveText('HTTP 200');
  const box = (await debug.locator('.semi-sidesheet-inner').boundingBox())!;
  expect(box.width).toBeLessThanOrEqual(390);
  await page.screenshot({ path: '.tmp/screens/playground-zh-dark-narrow-debug.png', animations: 'disabled' });
  await debug.locator('.semi-sidesheet-close').click();
  await expect(debug).toBeHidden();

  // An uploaded picture goes as a data: URL; storage keeps only web addresses, so after a reload the question says so.
  const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
  await page.getByTestId('pg-image-toggle').click();
  await page.locator('.mg-pg-image-row input[type=file]').setInputFiles({ name: 'dot.png', mimeType: 'image/png', buffer: png });
  await expect(page.getByTestId('pg-attachments').locator('img')).toHaveCount(1);
  await send(page, '看图');
  await expect(replies(page).nth(1)).toHaveAttribute('data-status', 'complete');
  await expect(questions(page).nth(1).getByTestId('pg-thumbnail')).toHaveCount(1);
  const sent = upstream.seen.filter((seen) => seen.path === '/v1/chat/completions').at(-1)!.body?.messages as { content: unknown }[];
  expect(sent.at(-1)!.content).toEqual([
    { type: 'text', text: '看图' },
    { type: 'image_url', image_url: { url: `data:image/png;base64,${png.toString('base64')}` } },
  ]);
  await page.reload();
  await expect(questions(page).nth(1)).toContainText('1 张粘贴的图片未保存');
  await expect(questions(page).nth(1).getByTestId('pg-thumbnail')).toHaveCount(0);
  // The debug record lives as long as the page.
  await page.getByTestId('pg-debug-toggle').click();
  await expect(debug.getByRole('heading', { name: '暂无请求' }).first()).toBeVisible();
});
