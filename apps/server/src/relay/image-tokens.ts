import type { PromptImage } from '@modelgate/protocol';
import { imageSizeOf, type ImageSize } from '../lib/image-size.js';
import type { UserUrlFetcher } from '../lib/user-url-fetch.js';

/**
 * Prompt tokens of the images in a prompt, as new-api's getImageToken counts them: `detail: low`
 * costs the model's base tokens; high and auto read the image's width and height (from its
 * header: the address fetched through UserUrlFetcher, so through the worker when one is set; a
 * data: URL decoded here) and cost base + tiles × tile tokens, the tiles being 512-px squares of
 * the image scaled to fit 2048 × 2048 and then to a shortest side of 768 (OpenAI's rule). The
 * gpt-4.1-mini/nano, o4-mini and gpt-5-mini/nano families count 32-px patches instead (at most
 * 1,536, times a multiplier); models outside OpenAI's families cost a flat 520.
 *
 * Counting never fails a call and never holds it long: an image that cannot be read within
 * FETCH_TIMEOUT_MS (all images of a prompt share that time) or is not a PNG, JPEG, GIF or WebP
 * costs 3 × base, what new-api counts when it does not fetch images. Sizes read from addresses
 * are kept in a small LRU cache, so a picture sent again is not fetched again.
 */
export interface ImageTokenCounter {
  tokens(images: readonly PromptImage[], model: string): Promise<number>;
}

export const FETCH_TIMEOUT_MS = 2000;
/** Bytes read from an image before giving up on finding its size (a JPEG's EXIF can come first). */
const MAX_HEADER_BYTES = 1024 * 1024;
/** Distinct addresses fetched for one prompt; the others cost the fallback. */
const MAX_FETCHES_PER_PROMPT = 8;
const CACHE_SIZE = 1024;
/** Longest address kept in the cache (longer ones are still counted, just not remembered). */
const MAX_CACHED_URL = 2048;
/** Base64 characters decoded at a time from a data: URL until the size shows up. */
const BASE64_STEP = 64 * 1024;

type Rule = { kind: 'flat'; tokens: number } | { kind: 'tiles'; base: number; tile: number } | { kind: 'patches'; multiplier: number };

/** The model families of new-api's IsOpenAITextModel. */
const OPENAI_TEXT_MODELS = ['gpt-', 'o1', 'o3', 'o4', 'chatgpt'];
const PATCH_MODELS: readonly [test: (model: string) => boolean, multiplier: number][] = [
  [(model) => model.includes('gpt-4.1-mini'), 1.62],
  [(model) => model.includes('gpt-4.1-nano'), 2.46],
  [(model) => model.startsWith('o4-mini'), 1.72],
  [(model) => model.startsWith('gpt-5-mini'), 1.62],
  [(model) => model.startsWith('gpt-5-nano'), 2.46],
];

/** new-api's per-model constants (service/token_counter.go). */
export function imageRuleFor(model: string): Rule {
  const lower = model.toLowerCase();
  if (!OPENAI_TEXT_MODELS.some((family) => lower.includes(family))) return { kind: 'flat', tokens: 520 };
  for (const [test, multiplier] of PATCH_MODELS) if (test(lower)) return { kind: 'patches', multiplier };
  if (lower.startsWith('gpt-4o-mini')) return { kind: 'tiles', base: 2833, tile: 5667 };
  if (lower.startsWith('gpt-5-chat-latest') || (lower.startsWith('gpt-5') && !lower.includes('mini') && !lower.includes('nano')))
    return { kind: 'tiles', base: 70, tile: 140 };
  if (lower.startsWith('o1') || lower.startsWith('o3')) return { kind: 'tiles', base: 75, tile: 150 };
  if (lower.includes('computer-use-preview')) return { kind: 'tiles', base: 65, tile: 129 };
  return { kind: 'tiles', base: 85, tile: 170 };
}

/** Base tokens of a rule: what a low-detail image costs; three of them when the size is unknown. */
const baseOf = (rule: Rule): number => (rule.kind === 'tiles' ? rule.base : 85);

/** Tokens of one image of this size under the rule. */
export function tokensForSize(rule: Rule, width: number, height: number): number {
  switch (rule.kind) {
    case 'flat':
      return rule.tokens;
    case 'patches':
      return Math.round(patchesFor(width, height) * rule.multiplier);
    case 'tiles': {
      // Fit within 2048 × 2048, then scale so the shortest side is 768, and count 512-px tiles.
      const fit = Math.max(width, height) > 2048 ? Math.max(width, height) / 2048 : 1;
      const fitWidth = Math.round(width / fit);
      const fitHeight = Math.round(height / fit);
      const shortest = Math.min(fitWidth, fitHeight);
      if (shortest === 0) return rule.base;
      const finalWidth = Math.round((fitWidth * 768) / shortest);
      const finalHeight = Math.round((fitHeight * 768) / shortest);
      return Math.ceil(finalWidth / 512) * Math.ceil(finalHeight / 512) * rule.tile + rule.base;
    }
    default: {
      const unreachable: never = rule;
      return unreachable;
    }
  }
}

/** 32-px patches, scaled down to at most 1,536 when there are more (new-api's formula). */
function patchesFor(width: number, height: number): number {
  const raw = Math.ceil(width / 32) * Math.ceil(height / 32);
  if (raw <= 1536) return raw;
  let ratio = Math.sqrt((32 * 32 * 1536) / (width * height));
  const adjust = Math.min(Math.floor((width * ratio) / 32) / ((width * ratio) / 32), Math.floor((height * ratio) / 32) / ((height * ratio) / 32));
  if (!Number.isNaN(adjust) && adjust > 0) ratio *= adjust;
  return Math.min(1536, Math.ceil((width * ratio) / 32) * Math.ceil((height * ratio) / 32));
}

/** The size of an image, or undefined when it cannot be read. */
type Measured = ImageSize | undefined;

export class ImageTokens implements ImageTokenCounter {
  /** Address → size, in least- to most-recently used order. */
  private readonly cache = new Map<string, ImageSize>();
  /** Fetches under way, so that concurrent prompts with one picture fetch it once. */
  private readonly pending = new Map<string, Promise<Measured>>();

  constructor(
    private readonly fetcher: UserUrlFetcher,
    private readonly onFailure: (error: unknown) => void = () => undefined,
    private readonly timeoutMs = FETCH_TIMEOUT_MS,
  ) {}

  async tokens(images: readonly PromptImage[], model: string): Promise<number> {
    if (images.length === 0) return 0;
    const rule = imageRuleFor(model);
    if (rule.kind === 'flat') return images.length * rule.tokens;
    const deadline = AbortSignal.timeout(this.timeoutMs);
    const fetched = new Set<string>();
    const counts = await Promise.all(
      images.map(async (image) => {
        if (image.detail === 'low' && rule.kind === 'tiles') return rule.base;
        const isAddress = /^https?:\/\//i.test(image.url);
        if (isAddress && !this.cache.has(image.url)) {
          fetched.add(image.url);
          if (fetched.size > MAX_FETCHES_PER_PROMPT) return 3 * baseOf(rule);
        }
        const size = await this.sizeOf(image.url, deadline);
        return size ? tokensForSize(rule, size.width, size.height) : 3 * baseOf(rule);
      }),
    );
    return counts.reduce((sum, count) => sum + count, 0);
  }

  private sizeOf(url: string, deadline: AbortSignal): Promise<Measured> {
    if (url === '') return Promise.resolve(undefined);
    if (url.startsWith('data:')) return Promise.resolve(sizeFromBase64(url.slice(url.indexOf(',') + 1)));
    if (!/^https?:\/\//i.test(url)) return Promise.resolve(looksLikeBase64(url) ? sizeFromBase64(url) : undefined);
    const cached = this.cache.get(url);
    if (cached) {
      this.cache.delete(url);
      this.cache.set(url, cached);
      return Promise.resolve(cached);
    }
    let pending = this.pending.get(url);
    if (!pending) {
      pending = this.fetchSize(url).finally(() => this.pending.delete(url));
      this.pending.set(url, pending);
    }
    // The prompt waits until its deadline; the fetch itself runs to its own and fills the cache.
    return Promise.race([pending, untilAborted(deadline)]);
  }

  private async fetchSize(url: string): Promise<Measured> {
    try {
      const fetched = await this.fetcher.fetch(url, { timeoutMs: this.timeoutMs, maxBytes: MAX_HEADER_BYTES, enough: (head) => imageSizeOf(head) !== 'more' });
      const size = imageSizeOf(fetched.bytes);
      if (typeof size !== 'object') return undefined;
      if (url.length <= MAX_CACHED_URL) {
        this.cache.set(url, size);
        if (this.cache.size > CACHE_SIZE) this.cache.delete(this.cache.keys().next().value!);
      }
      return size;
    } catch (error) {
      this.onFailure(error);
      return undefined;
    }
  }
}

const untilAborted = (signal: AbortSignal): Promise<undefined> =>
  new Promise((resolve) => {
    if (signal.aborted) resolve(undefined);
    else signal.addEventListener('abort', () => resolve(undefined), { once: true });
  });

const looksLikeBase64 = (text: string) => text.length >= 64 && /^[A-Za-z0-9+/_-]+={0,2}$/.test(text.slice(0, 64));

/** Decodes a growing prefix of the base64 until the header shows the size: a large picture is not decoded whole. */
function sizeFromBase64(base64: string): Measured {
  for (let length = BASE64_STEP; ; length *= 4) {
    const end = Math.min(base64.length, length);
    const size = imageSizeOf(Buffer.from(base64.slice(0, end - (end % 4)), 'base64'));
    if (typeof size === 'object') return size;
    if (size === 'unknown' || end === base64.length || end >= MAX_HEADER_BYTES * 2) return undefined;
  }
}
