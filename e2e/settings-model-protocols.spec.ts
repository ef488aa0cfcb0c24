import { expect, test, type Locator, type Page } from '@playwright/test';
import { apiCall, apiSession, presetLanguageAndTheme, ROOT, setOption, signIn, type ApiSession } from './wallet-helpers';

/**
 * The Claude设置 and Gemini设置 cards of /setting?tab=operation and the cache-creation ratio of the
 * model ratios card (issue 14), over the real server as root: each new setting is changed, saved,
 * read back from GET /api/option/ and seen again after a reload; bad JSON, a wrong shape and an
 * out-of-range share are refused before anything is sent. Every option touched is put back.
 */

type Language = 'zh' | 'en';

const TOUCHED = [
  'claude.model_headers_settings',
  'claude.default_max_tokens',
  'claude.thinking_adapter_enabled',
  'claude.thinking_adapter_budget_tokens_percentage',
  'gemini.safety_settings',
  'gemini.version_settings',
  'gemini.supported_imagine_models',
  'gemini.thinking_adapter_enabled',
  'gemini.thinking_adapter_budget_tokens_percentage',
  'CreateCacheRatio',
  'ResponsesRetentionHours',
  'global.chat_completions_to_responses_policy',
] as const;

let root: ApiSession;
let before: Record<string, string> = {};

async function readOptions(): Promise<Record<string, string>> {
  const entries = await apiCall<{ key: string; value: string }[]>(root, 'GET', '/api/option/');
  return Object.fromEntries(entries.map((entry) => [entry.key, entry.value]));
}

test.beforeAll(async () => {
  root = await apiSession(ROOT.username, ROOT.password);
  before = await readOptions();
  for (const key of TOUCHED) expect(before[key], `${key} is listed by GET /api/option/`).toBeDefined();
});

test.afterAll(async () => {
  if (!root) return;
  const now = await readOptions();
  for (const key of TOUCHED) if (now[key] !== before[key]) await setOption(root, key, before[key]!);
  const restored = await readOptions();
  for (const key of TOUCHED) expect(restored[key], key).toBe(before[key]);
  await root.api.dispose();
});

async function openOperation(page: Page, language: Language, theme: 'light' | 'dark'): Promise<void> {
  await presetLanguageAndTheme(page, language, theme);
  await signIn(page, ROOT.username, ROOT.password);
  await page.goto('/setting?tab=operation');
  await expect(page.getByTestId('op-card-claude').locator('textarea').first()).toBeVisible();
}

const field = (page: Page, key: string) => page.locator(`[id="op-field-${key}"]`);
const switchOf = (page: Page, key: string) => page.getByTestId(`op-${key}`).getByRole('switch');
const exactly = (text: string) => new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);

async function expectToast(page: Page, text: string, action: () => Promise<void>): Promise<void> {
  const toasts = page.locator('.semi-toast-content');
  await toasts.evaluateAll((nodes) => nodes.forEach((node) => node.setAttribute('data-seen', 'true')));
  await action();
  await expect(
    page
      .locator('.semi-toast-content:not([data-seen])')
      .filter({ hasText: exactly(text) })
      .first(),
  ).toBeVisible();
}

async function save(page: Page, card: Locator, language: Language, expected: string): Promise<void> {
  await expectToast(page, expected, () => card.getByRole('button', { name: language === 'zh' ? '保存设置' : 'Save', exact: true }).click());
}

async function shoot(card: Locator, name: string): Promise<void> {
  await card.scrollIntoViewIfNeeded();
  await card.screenshot({ path: `.tmp/screens/settings-model-protocols-${name}.png` });
}

test('[zh, light] Claude设置: headers, default max tokens, the adapter switch and share are saved and kept after a reload; bad input is refused', async ({
  page,
}) => {
  await openOperation(page, 'zh', 'light');
  const card = page.getByTestId('op-card-claude');
  await expect(card).toContainText('Claude设置');
  await expect(card).toContainText('Claude思考适配 BudgetTokens = MaxTokens * BudgetTokens 百分比');
  await expect(card.getByText('启用Claude思考适配（-thinking后缀）')).toBeVisible();
  await expect(field(page, 'claude.default_max_tokens')).toHaveValue(before['claude.default_max_tokens']!);

  const headers = JSON.stringify(
    { 'claude-3-7-sonnet-20250219': { 'anthropic-beta': ['output-128k-2025-02-19', 'token-efficient-tools-2025-02-19'] } },
    null,
    2,
  );
  const maxTokens = JSON.stringify({ default: 4096, 'claude-3-haiku-20240307': 2048 }, null, 2);
  const adapter = before['claude.thinking_adapter_enabled'] !== 'true';

  // Not JSON: named under the field and refused on save.
  await field(page, 'claude.default_max_tokens').fill('{"default": 4096');
  await expect(page.getByTestId('op-claude.default_max_tokens').getByRole('alert')).toHaveText('缺省 MaxTokens不是合法的 JSON 字符串');
  await save(page, card, 'zh', '缺省 MaxTokens不是合法的 JSON 字符串');
  // JSON of the wrong shape: refused with the entry at fault.
  await field(page, 'claude.default_max_tokens').fill('{"default": "4096"}');
  await save(page, card, 'zh', '缺省 MaxTokens中 default 的值必须是非负整数');
  await field(page, 'claude.model_headers_settings').fill('{"claude-x": {"anthropic-beta": "output-128k-2025-02-19"}}');
  await field(page, 'claude.default_max_tokens').fill(maxTokens);
  await save(page, card, 'zh', 'Claude请求头覆盖中 claude-x 的值必须形如 {"请求头": ["值", ...]}，值中不能有换行');
  // A share above 1.
  await field(page, 'claude.model_headers_settings').fill(headers);
  await field(page, 'claude.thinking_adapter_budget_tokens_percentage').fill('1.5');
  await expect(page.getByTestId('op-claude.thinking_adapter_budget_tokens_percentage').getByRole('alert')).toHaveText('思考适配 BudgetTokens 百分比不能大于 1');
  await save(page, card, 'zh', '思考适配 BudgetTokens 百分比不能大于 1');
  expect(await readOptions()).toMatchObject({
    'claude.default_max_tokens': before['claude.default_max_tokens'],
    'claude.model_headers_settings': before['claude.model_headers_settings'],
  });

  await field(page, 'claude.thinking_adapter_budget_tokens_percentage').fill('0.5');
  // The budget the share gives with the default max tokens typed above.
  await expect(page.getByTestId('op-claude.thinking_adapter_budget_tokens_percentage')).toContainText('缺省 4096 tokens 时 BudgetTokens 为 2048');
  await switchOf(page, 'claude.thinking_adapter_enabled').click();
  await save(page, card, 'zh', '保存成功');
  expect(await readOptions()).toMatchObject({
    'claude.model_headers_settings': headers,
    'claude.default_max_tokens': maxTokens,
    'claude.thinking_adapter_enabled': String(adapter),
    'claude.thinking_adapter_budget_tokens_percentage': '0.5',
  });

  await page.reload();
  await expect(field(page, 'claude.model_headers_settings')).toHaveValue(headers);
  await expect(field(page, 'claude.default_max_tokens')).toHaveValue(maxTokens);
  await expect(field(page, 'claude.thinking_adapter_budget_tokens_percentage')).toHaveValue('0.5');
  await expect(switchOf(page, 'claude.thinking_adapter_enabled')).toHaveAttribute('aria-checked', String(adapter));
  await save(page, page.getByTestId('op-card-claude'), 'zh', '你似乎并没有修改什么');
  await shoot(page.getByTestId('op-card-claude'), 'claude-zh-light');
  await shoot(page.getByTestId('op-card-gemini'), 'gemini-zh-light');
});

test('[en, dark] Gemini settings: safety, versions, image models, the adapter switch and share are saved and kept after a reload; bad input is refused', async ({
  page,
}) => {
  await openOperation(page, 'en', 'dark');
  const card = page.getByTestId('op-card-gemini');
  await expect(card).toContainText('Gemini settings');
  await expect(field(page, 'gemini.safety_settings')).toHaveValue(before['gemini.safety_settings']!);

  const safety = JSON.stringify({ default: 'BLOCK_ONLY_HIGH', HARM_CATEGORY_CIVIC_INTEGRITY: 'BLOCK_NONE' }, null, 2);
  const versions = JSON.stringify({ default: 'v1beta', 'gemini-1.0-pro': 'v1', 'gemini-exp': 'v1alpha' }, null, 2);
  const images = JSON.stringify(['gemini-2.5-flash-image', 'my-image-model'], null, 2);
  const adapter = before['gemini.thinking_adapter_enabled'] !== 'true';

  await field(page, 'gemini.safety_settings').fill('{"default": OFF}');
  await expect(page.getByTestId('op-gemini.safety_settings').getByRole('alert')).toHaveText('Gemini safety settings is not a valid JSON string');
  await save(page, card, 'en', 'Gemini safety settings is not a valid JSON string');
  await field(page, 'gemini.safety_settings').fill('{"default": "NONE"}');
  await save(
    page,
    card,
    'en',
    'In Gemini safety settings, the value of default must be OFF, BLOCK_NONE, BLOCK_ONLY_HIGH, BLOCK_MEDIUM_AND_ABOVE, BLOCK_LOW_AND_ABOVE or HARM_BLOCK_THRESHOLD_UNSPECIFIED',
  );
  await field(page, 'gemini.safety_settings').fill(safety);
  await field(page, 'gemini.version_settings').fill('{"default": "beta"}');
  await save(page, card, 'en', 'In Gemini API versions, the value of default must be an API version such as v1 or v1beta');
  await field(page, 'gemini.version_settings').fill(versions);
  await field(page, 'gemini.thinking_adapter_budget_tokens_percentage').fill('0.001');
  await save(page, card, 'en', 'Thinking budget share cannot be less than 0.002');
  expect((await readOptions())['gemini.safety_settings']).toBe(before['gemini.safety_settings']);

  await field(page, 'gemini.thinking_adapter_budget_tokens_percentage').fill('0.25');
  await field(page, 'gemini.supported_imagine_models').fill(images);
  await switchOf(page, 'gemini.thinking_adapter_enabled').click();
  await save(page, card, 'en', 'Saved');
  expect(await readOptions()).toMatchObject({
    'gemini.safety_settings': safety,
    'gemini.version_settings': versions,
    'gemini.supported_imagine_models': images,
    'gemini.thinking_adapter_enabled': String(adapter),
    'gemini.thinking_adapter_budget_tokens_percentage': '0.25',
  });

  await page.reload();
  await expect(field(page, 'gemini.safety_settings')).toHaveValue(safety);
  await expect(field(page, 'gemini.version_settings')).toHaveValue(versions);
  await expect(field(page, 'gemini.supported_imagine_models')).toHaveValue(images);
  await expect(field(page, 'gemini.thinking_adapter_budget_tokens_percentage')).toHaveValue('0.25');
  await expect(switchOf(page, 'gemini.thinking_adapter_enabled')).toHaveAttribute('aria-checked', String(adapter));
  await shoot(page.getByTestId('op-card-claude'), 'claude-en-dark');
  await shoot(page.getByTestId('op-card-gemini'), 'gemini-en-dark');
});

test('[en, dark] Responses API: the retention and the ChatCompletions→Responses policy are saved and kept after a reload; a bad pattern is refused', async ({
  page,
}) => {
  await openOperation(page, 'en', 'dark');
  const card = page.getByTestId('op-card-responses');
  await expect(card).toContainText('Responses API');
  await expect(field(page, 'ResponsesRetentionHours')).toHaveValue(before.ResponsesRetentionHours!);
  await field(page, 'global.chat_completions_to_responses_policy').fill('{"enabled": true, "model_patterns": ["gpt-(5"]}');
  await save(page, card, 'en', 'gpt-(5 in ChatCompletions→Responses policy is not a valid regular expression');
  await field(page, 'global.chat_completions_to_responses_policy').fill('{"enabled": "yes"}');
  await save(
    page,
    card,
    'en',
    'enabled in ChatCompletions→Responses policy is not a field it takes or has the wrong type (enabled and all_channels are booleans, channel_ids and channel_types arrays of whole numbers, model_patterns an array of strings)',
  );
  expect((await readOptions())['global.chat_completions_to_responses_policy']).toBe(before['global.chat_completions_to_responses_policy']);

  const policy = JSON.stringify({ enabled: true, all_channels: false, channel_ids: [1], channel_types: [], model_patterns: ['^gpt-5.*-codex$'] }, null, 2);
  await field(page, 'ResponsesRetentionHours').fill('48');
  await field(page, 'global.chat_completions_to_responses_policy').fill(policy);
  await save(page, card, 'en', 'Saved');
  expect(await readOptions()).toMatchObject({ ResponsesRetentionHours: '48', 'global.chat_completions_to_responses_policy': policy });
  await page.reload();
  await expect(field(page, 'ResponsesRetentionHours')).toHaveValue('48');
  await expect(field(page, 'global.chat_completions_to_responses_policy')).toHaveValue(policy);
  await shoot(page.getByTestId('op-card-responses'), 'responses-en-dark');
});

test('[zh, light] 缓存创建倍率: typed in the JSON tab beside 缓存倍率, saved, shown in the table column and kept after a reload', async ({ page }) => {
  await openOperation(page, 'zh', 'light');
  const card = page.getByTestId('model-pricing-card');
  const model = `cc-e2e-${Date.now().toString(36)}`;
  const stored = JSON.parse(before.CreateCacheRatio!) as Record<string, number>;
  const next = JSON.stringify({ ...stored, [model]: 2 }, null, 2);
  const json = card.getByTestId('model-pricing-json-CreateCacheRatio');
  await expect(card.getByText('缓存创建倍率', { exact: false }).first()).toBeVisible();
  await json.fill('{"x": 1.25,');
  await expect(card.getByTestId('model-pricing-json-error-CreateCacheRatio')).toHaveText('缓存创建倍率不是合法的 JSON 字符串');
  await save(page, card, 'zh', '缓存创建倍率不是合法的 JSON 字符串');
  await json.fill(next);
  await save(page, card, 'zh', '保存成功');
  expect(JSON.parse((await readOptions()).CreateCacheRatio!)).toEqual({ ...stored, [model]: 2 });

  await page.reload();
  const reloaded = page.getByTestId('model-pricing-card');
  await expect(reloaded.getByTestId('model-pricing-json-CreateCacheRatio')).toHaveValue(next);
  await reloaded.getByRole('tab', { name: '可视化编辑' }).click();
  await reloaded.getByTestId('model-pricing-search').fill(model);
  await expect(reloaded.getByRole('columnheader', { name: '缓存创建倍率' })).toBeVisible();
  await expect(reloaded.getByTestId(`model-pricing-row-${model}`)).toContainText('2');
});
