import { createHmac } from 'node:crypto';
import { isIP } from 'node:net';
import { Agent, request } from 'undici';
import { isNonPublic, publicOnlyLookup } from '../../lib/user-url-fetch.js';
import { networkFailureReason } from '../../lib/connection-failure.js';

/** new-api's dto.Notify: `{{value}}` in content is replaced by values in order. */
export interface Notice {
  type: string;
  title: string;
  content: string;
  values: (string | number)[];
}

/** new-api's WebhookPayload, in its key order. */
export interface WebhookPayload {
  type: string;
  title: string;
  content: string;
  values?: (string | number)[];
  timestamp: number;
}

const VALUE_PLACEHOLDER = '{{value}}';
const WEBHOOK_TIMEOUT_MS = 10_000;

/** The content with each `{{value}}` replaced by the next value. */
export function fillNotice(notice: Notice): string {
  let content = notice.content;
  for (const value of notice.values) content = content.replace(VALUE_PLACEHOLDER, String(value));
  return content;
}

/** new-api's X-Webhook-Signature: hex HMAC-SHA256 of the body bytes with the user's secret. */
export function webhookSignature(secret: string, body: string): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

/** A failed webhook, in words safe to log: never the URL's query or the secret. */
export class WebhookError extends Error {}

/**
 * Posts notices to the webhooks users configure, as new-api's SendWebhookNotify does (JSON payload,
 * signature header when a secret is set, any 2xx is delivered). The addresses are the users' own,
 * so by default a post never reaches this server's loopback or private networks (new-api's SSRF
 * protection, on by default); tests with a local receiver allow them.
 */
export class WebhookSender {
  private readonly agent: Agent;
  private readonly publicOnly: boolean;
  private readonly timeoutMs: number;

  constructor(settings: { allowPrivateNetwork?: boolean; timeoutMs?: number } = {}) {
    this.publicOnly = !settings.allowPrivateNetwork;
    this.timeoutMs = settings.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
    this.agent = new Agent({ keepAliveTimeout: 1_000, connect: this.publicOnly ? { lookup: publicOnlyLookup } : {} });
  }

  async send(address: string, secret: string, notice: Notice): Promise<WebhookPayload> {
    let url: URL;
    try {
      url = new URL(address);
    } catch {
      throw new WebhookError('the webhook address is not a valid URL');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new WebhookError('the webhook address is not http(s)');
    const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    if (this.publicOnly && isIP(host) !== 0 && isNonPublic(host)) throw new WebhookError('the webhook address is not on the public internet');

    const payload: WebhookPayload = {
      type: notice.type,
      title: notice.title,
      content: fillNotice(notice),
      ...(notice.values.length > 0 ? { values: notice.values } : {}),
      timestamp: Math.floor(Date.now() / 1000),
    };
    const body = JSON.stringify(payload);
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (secret !== '') headers['x-webhook-signature'] = webhookSignature(secret, body);
    try {
      const answer = await request(url, { method: 'POST', headers, body, dispatcher: this.agent, signal: AbortSignal.timeout(this.timeoutMs) });
      await answer.body.dump();
      if (answer.statusCode < 200 || answer.statusCode >= 300) throw new WebhookError(`the webhook answered HTTP ${answer.statusCode}`);
    } catch (error) {
      if (error instanceof WebhookError) throw error;
      throw new WebhookError(reasonOf(error));
    }
    return payload;
  }

  async close(): Promise<void> {
    await this.agent.destroy().catch(() => undefined);
  }
}

function reasonOf(error: unknown): string {
  for (let cause: unknown = error; cause instanceof Error; cause = cause.cause) {
    if ((cause as { code?: unknown }).code === 'EPRIVATEADDRESS') return 'the webhook address is not on the public internet';
  }
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) return 'the webhook did not answer in time';
  return networkFailureReason(error);
}
