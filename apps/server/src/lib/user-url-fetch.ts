import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { Agent, request, type Dispatcher } from 'undici';
import { AppError } from '../errors/app-error.js';
import { networkFailureReason } from './connection-failure.js';

/**
 * Fetches addresses that callers put in their requests (images in prompts), as new-api's
 * DoDownloadRequest does: through the worker when the WorkerUrl option is set (a POST of
 * `{"url", "key"}` to it, the key being WorkerValidKey; the worker fetches the address from its own
 * network and answers with what it got), else directly. Either way only http(s) addresses, within
 * a time limit and a size cap, and the answer read only as far as the caller needs.
 *
 * A direct fetch never reaches this server's own networks: an address that is, or resolves to, a
 * loopback, private, link-local or otherwise non-public IP is refused (checked on the address the
 * connection is made to, so a name that resolves differently the second time gains nothing). A
 * gateway that fetched whatever its callers name would let any key holder probe the hosts behind it.
 *
 * Errors are AppErrors (`user_url:*`) naming the address without its query, and never the worker's
 * key or anything the worker answered.
 */
export interface UserUrlRead {
  /** The whole fetch, worker included, from the call to the last byte read. */
  timeoutMs: number;
  /** A longer answer is an error. */
  maxBytes: number;
  /** Stop once the bytes so far are enough (an image's header): the rest is not downloaded. */
  enough?: (head: Buffer) => boolean;
  signal?: AbortSignal;
}

export interface FetchedUrl {
  bytes: Buffer;
  contentType: string;
  /** The whole answer was read; false when `enough` stopped the read early. */
  complete: boolean;
  via: 'worker' | 'direct';
}

export interface UserUrlFetcherOptions {
  /** Let direct fetches reach loopback and private addresses (tests with local servers). */
  allowPrivateNetwork?: boolean;
}

/** Where the WorkerUrl and WorkerValidKey options are read (the option service; lib stays below it). */
export interface WorkerSettings {
  string(key: 'WorkerUrl' | 'WorkerValidKey'): string;
}

/** Redirects followed on a direct fetch, each checked as the first address was. */
const MAX_REDIRECTS = 3;
const REDIRECTS: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

export class UserUrlFetcher {
  private readonly direct: Agent;
  private readonly worker = new Agent({ keepAliveTimeout: 10_000 });
  private readonly publicOnly: boolean;

  constructor(
    private readonly options: WorkerSettings,
    settings: UserUrlFetcherOptions = {},
  ) {
    this.publicOnly = !settings.allowPrivateNetwork;
    this.direct = new Agent({ keepAliveTimeout: 10_000, connect: this.publicOnly ? { lookup: publicOnlyLookup } : {} });
  }

  async fetch(address: string, read: UserUrlRead): Promise<FetchedUrl> {
    const url = userUrlOf(address);
    const workerUrl = this.options.string('WorkerUrl');
    const key = this.options.string('WorkerValidKey');
    const timeout = AbortSignal.timeout(read.timeoutMs);
    const signal = read.signal ? AbortSignal.any([timeout, read.signal]) : timeout;
    try {
      if (workerUrl !== '') return await this.throughWorker(workerUrl, key, url, read, signal);
      return await this.directly(url, read, signal);
    } catch (error) {
      const reason = timeout.aborted ? `timed out after ${read.timeoutMs} ms` : signal.aborted ? 'cancelled' : reasonOf(error);
      const shown = shownUrl(url);
      // The key never leaves, even should a reason ever quote what was sent.
      const safe = key === '' ? reason : reason.split(key).join('****');
      throw new AppError('user_url:fetch_failed', `无法获取 ${shown}：${safe} (could not fetch ${shown}: ${safe})`, { status: 400, cause: error });
    }
  }

  async close(): Promise<void> {
    await Promise.all([this.direct.destroy(), this.worker.destroy()].map((closing) => closing.catch(() => undefined)));
  }

  /** new-api's DoWorkerRequest: POST the worker URL (with its trailing slash) `{"url", "key"}`. */
  private async throughWorker(workerUrl: string, key: string, url: URL, read: UserUrlRead, signal: AbortSignal): Promise<FetchedUrl> {
    const answer = await request(workerUrl.endsWith('/') ? workerUrl : `${workerUrl}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: url.href, key }),
      dispatcher: this.worker,
      signal,
    });
    if (answer.statusCode < 200 || answer.statusCode >= 300) {
      // Its body is not quoted: a worker that refuses a key may well repeat it.
      discard(answer);
      throw new FetchProblem(`the worker answered HTTP ${answer.statusCode}`);
    }
    return { ...(await readCapped(answer, read)), contentType: contentTypeOf(answer), via: 'worker' };
  }

  private async directly(first: URL, read: UserUrlRead, signal: AbortSignal): Promise<FetchedUrl> {
    let url = first;
    for (let redirects = 0; ; redirects += 1) {
      if (this.publicOnly) refusePrivateLiteral(url);
      const answer = await request(url, { method: 'GET', dispatcher: this.direct, signal, headers: { accept: 'image/*,*/*;q=0.8' } });
      const location = answer.headers.location;
      if (REDIRECTS.has(answer.statusCode) && typeof location === 'string') {
        discard(answer);
        if (redirects === MAX_REDIRECTS) throw new FetchProblem(`more than ${MAX_REDIRECTS} redirects`);
        url = userUrlOf(new URL(location, url).href);
        continue;
      }
      if (answer.statusCode < 200 || answer.statusCode >= 300) {
        discard(answer);
        throw new FetchProblem(`HTTP ${answer.statusCode}`);
      }
      return { ...(await readCapped(answer, read)), contentType: contentTypeOf(answer), via: 'direct' };
    }
  }
}

/** A reason the fetch failed, in words fit for the caller. */
class FetchProblem extends Error {}

function userUrlOf(address: string): URL {
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    throw new AppError('user_url:invalid', '地址无效 (not a valid URL)', { status: 400 });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new AppError('user_url:unsupported_scheme', `只支持 http 和 https 地址 (only http and https addresses can be fetched, not ${url.protocol})`, {
      status: 400,
    });
  }
  return url;
}

/** The address as errors show it: no credentials, query or fragment, at most 120 characters. */
function shownUrl(url: URL): string {
  const shown = `${url.protocol}//${url.host}${url.pathname}`;
  return shown.length > 120 ? `${shown.slice(0, 117)}...` : shown;
}

const contentTypeOf = (answer: Dispatcher.ResponseData) => String(answer.headers['content-type'] ?? '');

/** Drops an answer's body unread. undici reports a body destroyed early as an abort error: it is expected here. */
function discard(answer: Dispatcher.ResponseData): void {
  answer.body.on('error', () => undefined);
  answer.body.destroy();
}

async function readCapped(answer: Dispatcher.ResponseData, read: UserUrlRead): Promise<{ bytes: Buffer; complete: boolean }> {
  const declared = Number(answer.headers['content-length'] ?? Number.NaN);
  if (declared > read.maxBytes) {
    discard(answer);
    throw new FetchProblem(`larger than ${read.maxBytes} bytes`);
  }
  // A read stopped early (enough, or past the cap) destroys the body.
  answer.body.on('error', () => undefined);
  const parts: Buffer[] = [];
  let size = 0;
  for await (const part of answer.body as AsyncIterable<Buffer>) {
    parts.push(part);
    size += part.length;
    if (size > read.maxBytes) throw new FetchProblem(`larger than ${read.maxBytes} bytes`);
    if (read.enough) {
      const head = Buffer.concat(parts, size);
      if (read.enough(head)) return { bytes: head, complete: false };
      parts.length = 0;
      parts.push(head);
    }
  }
  return { bytes: Buffer.concat(parts, size), complete: true };
}

function reasonOf(error: unknown): string {
  if (error instanceof FetchProblem || error instanceof PrivateAddressError) return error.message;
  for (let cause: unknown = error; cause instanceof Error; cause = cause.cause) {
    if (cause instanceof PrivateAddressError) return cause.message;
  }
  return networkFailureReason(error);
}

/** Addresses a fetch on a caller's behalf must not reach: this host, its networks, and the non-routable ranges. */
const NON_PUBLIC = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  NON_PUBLIC.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  NON_PUBLIC.addSubnet(network, prefix, 'ipv6');
}

class PrivateAddressError extends Error {
  readonly code = 'EPRIVATEADDRESS';
}

export function isNonPublic(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return NON_PUBLIC.check(address, 'ipv4');
  if (family !== 6) return true;
  // An IPv4 address written as IPv6 (::ffff:10.0.0.1) is that IPv4 address.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return NON_PUBLIC.check(mapped[1]!, 'ipv4');
  return NON_PUBLIC.check(address, 'ipv6');
}

function refusePrivateLiteral(url: URL): void {
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  if (isIP(host) !== 0 && isNonPublic(host)) throw new PrivateAddressError('the address is not on the public internet');
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** dns.lookup for the direct agent's connections: a name that resolves to a non-public address fails to connect. */
export function publicOnlyLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) {
      callback(error, []);
      return;
    }
    if (addresses.length === 0 || addresses.some((entry) => isNonPublic(entry.address))) {
      callback(new PrivateAddressError(`${hostname} resolves to an address that is not on the public internet`), []);
      return;
    }
    if (options.all) callback(null, addresses);
    else callback(null, addresses[0]!.address, addresses[0]!.family);
  });
}
