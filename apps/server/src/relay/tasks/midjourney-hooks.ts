import { isIP } from 'node:net';
import { Agent, request } from 'undici';
import { isNonPublic, publicOnlyLookup } from '../../lib/user-url-fetch.js';

const HOOK_TIMEOUT_MS = 10_000;

/**
 * Forwards midjourney-proxy's callbacks to the notifyHook the caller gave at submit
 * (MjNotifyEnabled). The address is the caller's own, so by default a post never reaches this
 * server's loopback or private networks (as the webhook sender); tests with a local hook allow them.
 */
export class MidjourneyHooks {
  private readonly agent: Agent;
  private readonly publicOnly: boolean;

  constructor(settings: { allowPrivateNetwork?: boolean } = {}) {
    this.publicOnly = !settings.allowPrivateNetwork;
    this.agent = new Agent({ keepAliveTimeout: 1_000, connect: this.publicOnly ? { lookup: publicOnlyLookup } : {} });
  }

  /** Posts the task as JSON; throws with a reason that names the host only. */
  async forward(address: string, task: unknown): Promise<void> {
    let url: URL;
    try {
      url = new URL(address);
    } catch {
      throw new Error('the notifyHook is not a valid URL');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('the notifyHook is not http(s)');
    const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    if (this.publicOnly && isIP(host) !== 0 && isNonPublic(host)) throw new Error(`the notifyHook ${host} is not on the public internet`);
    try {
      const answer = await request(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(task),
        dispatcher: this.agent,
        signal: AbortSignal.timeout(HOOK_TIMEOUT_MS),
      });
      await answer.body.dump();
      if (answer.statusCode < 200 || answer.statusCode >= 300) throw new Error(`the notifyHook ${host} answered HTTP ${answer.statusCode}`);
    } catch (error) {
      if (error instanceof Error && error.message.startsWith('the notifyHook')) throw error;
      throw new Error(`the notifyHook ${host} could not be reached`, { cause: error });
    }
  }

  async close(): Promise<void> {
    await this.agent.destroy().catch(() => undefined);
  }
}
