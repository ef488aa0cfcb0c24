import { expect, test, type Locator, type Page } from '@playwright/test';
import { signInBrowser } from './support/console-session';

/**
 * The channel drawer's per-type fields: what each type's key and "other" field take (AWS, Vertex,
 * Cloudflare, Azure), and the types this version cannot relay shown disabled in the type picker.
 */

async function openAddDrawer(page: Page): Promise<Locator> {
  await signInBrowser(page, 'root', '123456');
  await page.goto('/channel/add');
  const drawer = page.locator('.semi-sidesheet').filter({ hasText: '创建新的渠道' });
  await expect(drawer).toBeVisible();
  return drawer;
}

/** Opens the type picker and narrows it to the options matching `search`. */
async function searchType(page: Page, drawer: Locator, search: string): Promise<Locator> {
  await drawer.getByTestId('channel-form-type').click();
  // The picker's filter keeps the last search: replace it.
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.type(search);
  return page.locator('.semi-select-option').filter({ hasText: search });
}

async function chooseType(page: Page, drawer: Locator, name: string): Promise<void> {
  await (await searchType(page, drawer, name)).first().click();
  await expect(drawer.getByTestId('channel-form-type')).toContainText(name);
}

test('each type shows how its key and its other field are written', async ({ page }, testInfo) => {
  const drawer = await openAddDrawer(page);

  await chooseType(page, drawer, 'AWS Claude');
  await expect(drawer.getByTestId('channel-form-key')).toHaveAttribute('placeholder', '按照如下格式输入：AccessKey|SecretAccessKey|Region');
  await expect(drawer.getByText('AK|SK|Region，例如：AKIAxxxxxxxx|xxxxxxxx|us-east-1')).toBeVisible();

  await chooseType(page, drawer, 'Vertex AI');
  await expect(drawer.getByTestId('channel-form-key')).toHaveAttribute('placeholder', '请输入 JSON 格式的服务账号密钥');
  await expect(drawer.getByText('粘贴 Google Cloud 服务账号的 JSON 密钥文件内容；部署地区填写在下方“其他”中')).toBeVisible();
  await expect(drawer.getByText('部署地区', { exact: true })).toBeVisible();
  await expect(drawer.getByText(/"claude-3-5-sonnet-20241022":"us-east5"/)).toBeVisible();

  await chooseType(page, drawer, 'Azure OpenAI');
  await expect(drawer.getByText('AZURE_OPENAI_ENDPOINT', { exact: true })).toBeVisible();
  await expect(drawer.getByText('默认 API 版本', { exact: true })).toBeVisible();

  // Cloudflare needs its account id: the form says so before anything is sent.
  await chooseType(page, drawer, 'Cloudflare');
  await expect(drawer.getByText(/必填：Cloudflare Workers AI 的 Account ID/)).toBeVisible();
  await drawer.getByTestId('channel-form-name').fill('cf-no-account');
  await drawer.getByTestId('channel-form-submit').click();
  await expect(drawer.getByText('请填写Account ID！')).toBeVisible();
  await page.screenshot({ path: testInfo.outputPath('cloudflare.png') });
});

test('types that cannot relay are listed but cannot be chosen, with the reason', async ({ page }, testInfo) => {
  const drawer = await openAddDrawer(page);
  const dify = await searchType(page, drawer, 'Dify');
  await expect(dify).toHaveText('Dify（暂不支持转发）');
  await expect(dify).toHaveClass(/semi-select-option-disabled/);
  await page.screenshot({ path: testInfo.outputPath('unsupported.png') });
  await dify.click({ force: true });
  // The picker keeps its value: OpenAI, the form's default.
  await page.keyboard.press('Escape');
  await expect(drawer.getByTestId('channel-form-type')).toContainText('OpenAI');

  // Midjourney and Suno stay available for the task relays.
  const suno = await searchType(page, drawer, 'Suno API');
  await expect(suno).not.toHaveClass(/semi-select-option-disabled/);
});
