import { Agent, request } from 'undici';
import { MjTaskList, type MjTaskDto } from './midjourney-wire.js';

/** Where a Midjourney channel's proxy listens and the secret it wants. */
export interface MjUpstream {
  /** `scheme://host[:port]` plus the base URL's path, no trailing slash. */
  baseUrl: string;
  /** Sent as `mj-api-secret`. */
  secret: string;
}

export interface MjAnswer {
  status: number;
  /** The body as the proxy sent it. */
  text: string;
  /** The body parsed as JSON; undefined when it is not JSON. */
  json: unknown;
}

/** The proxy answered nothing usable: a network failure or a timeout. */
export class MjUpstreamUnreachable extends Error {}

const MAX_ANSWER_BYTES = 16 * 1024 * 1024;

/**
 * The calls the gateway makes to midjourney-proxy, through one keep-alive agent. The channel's
 * key goes as `mj-api-secret`, as new-api sends it; the key never appears in an error.
 */
export class MidjourneyClient {
  private readonly agent = new Agent({ keepAliveTimeout: 10_000, connections: 64 });

  async call(upstream: MjUpstream, method: 'GET' | 'POST', path: string, body: unknown, timeoutMs: number): Promise<MjAnswer> {
    const headers: Record<string, string> = { 'mj-api-secret': upstream.secret, accept: 'application/json' };
    if (method === 'POST') headers['content-type'] = 'application/json';
    try {
      const answer = await request(`${upstream.baseUrl}${path}`, {
        method,
        headers,
        body: method === 'POST' ? JSON.stringify(body ?? {}) : undefined,
        dispatcher: this.agent,
        signal: AbortSignal.timeout(timeoutMs),
      });
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of answer.body) {
        size += (chunk as Buffer).length;
        if (size > MAX_ANSWER_BYTES) throw new Error('the answer is too large');
        chunks.push(chunk as Buffer);
      }
      const text = Buffer.concat(chunks).toString('utf8');
      let json: unknown;
      try {
        json = text === '' ? undefined : JSON.parse(text);
      } catch {
        json = undefined;
      }
      return { status: answer.statusCode, text, json };
    } catch (error) {
      const reason = error instanceof Error ? (error.name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : error.message) : String(error);
      throw new MjUpstreamUnreachable(reason.split(upstream.secret).join('****'), { cause: error });
    }
  }

  /** POST /mj/task/list-by-condition {ids}: the poller's batch read. */
  async listByCondition(upstream: MjUpstream, ids: readonly string[], timeoutMs = 15_000): Promise<MjTaskDto[]> {
    const answer = await this.call(upstream, 'POST', '/mj/task/list-by-condition', { ids }, timeoutMs);
    if (answer.status !== 200) throw new MjUpstreamUnreachable(`list-by-condition answered HTTP ${answer.status}`);
    const parsed = MjTaskList.safeParse(answer.json);
    if (!parsed.success) throw new MjUpstreamUnreachable('list-by-condition answered something that is not a task list');
    return parsed.data;
  }

  /** GET an address the proxy gave (an image) as a stream, for /mj/image/:id. */
  async stream(address: string, timeoutMs: number) {
    return request(address, { method: 'GET', dispatcher: this.agent, signal: AbortSignal.timeout(timeoutMs) });
  }

  async close(): Promise<void> {
    await this.agent.close().catch(() => undefined);
  }
}
