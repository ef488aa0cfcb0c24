import type { ChannelEndpoint } from '../provider-types.js';
import type { UpstreamClient } from '../upstream-client.js';
import type { SunoAction } from './suno-wire.js';

/** new-api gives a fetch 15 s; a submit gets the same here rather than the relay's silence timeout alone. */
const FETCH_TIMEOUT_MS = 15_000;
const SUBMIT_TIMEOUT_MS = 60_000;
/** A fetch of 100 tasks with their clips is some hundred KB; anything near this is no Suno answer. */
const MAX_ANSWER_BYTES = 16 * 1024 * 1024;

async function readCapped(body: AsyncIterable<Buffer> & { destroy(): unknown }): Promise<string> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > MAX_ANSWER_BYTES) {
      body.destroy();
      throw new Error(`the Suno answer is larger than ${MAX_ANSWER_BYTES} bytes`);
    }
    parts.push(chunk);
  }
  return Buffer.concat(parts).toString('utf8');
}

export interface SunoAnswer {
  status: number;
  text: string;
}

/**
 * HTTP to a Suno-API server (channel type 36, its base URL the console's "Suno path"), as new-api's
 * task adaptor calls it: the channel key as `Authorization: Bearer`, JSON both ways, through the
 * relay's pooled upstream client.
 */
export class SunoClient {
  constructor(private readonly upstream: UpstreamClient) {}

  submit(endpoint: ChannelEndpoint, key: string, action: SunoAction, body: string): Promise<SunoAnswer> {
    return this.post(endpoint, key, `/suno/submit/${action.toLowerCase()}`, body, SUBMIT_TIMEOUT_MS);
  }

  fetch(endpoint: ChannelEndpoint, key: string, ids: readonly string[]): Promise<SunoAnswer> {
    return this.post(endpoint, key, '/suno/fetch', JSON.stringify({ ids }), FETCH_TIMEOUT_MS);
  }

  private async post(endpoint: ChannelEndpoint, key: string, path: string, body: string, timeoutMs: number): Promise<SunoAnswer> {
    const response = await this.upstream.send(
      {
        origin: endpoint.origin,
        path: `${endpoint.basePath}${path}`,
        headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${key}` },
        body,
      },
      { signal: AbortSignal.timeout(timeoutMs), stream: false },
    );
    return { status: response.statusCode, text: await readCapped(response.body) };
  }
}
