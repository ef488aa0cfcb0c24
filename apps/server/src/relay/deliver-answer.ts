import type { ProviderAdaptor } from '../providers/provider-types.js';
import { cappedStreamReader } from './capped-stream.js';
import type { ChatAttempt } from './chat-attempt.js';
import { deliverBuffered, deliverPiped, deliverStream, type DeliverOptions, type Delivery } from './deliver.js';
import type { OutputMeter } from './output-meter.js';
import type { RelayInput } from './relay-input.js';
import type { StreamWatchdog } from './stream-watchdog.js';

/** How one attempt's answer was asked for: what deliverAnswer chooses the way by. */
export interface AnswerPlan {
  input: RelayInput;
  adaptor: ProviderAdaptor;
  /** The request was converted to another format (chat-attempt.ts): the answer is converted back. */
  chat: ChatAttempt | undefined;
  /** The relay asked the upstream for stream usage the client did not ask for: its usage-only chunk is not forwarded. */
  askedStreamUsage: boolean;
  /** A capped call's output meter (output-meter.ts): its stream is metered and ended at the cap. */
  meter: OutputMeter | undefined;
}

export interface AnswerSettings {
  watchdog: StreamWatchdog;
  /** StreamCacheQueueLength: chunks queued for a slow client before the upstream is paused. */
  queueLength: number;
  maxBufferedBytes: number;
}

/**
 * The one place that decides how an upstream answer reaches the client:
 * - converted from another format: streamed back when the client asked for a stream and the
 *   upstream did not answer JSON (Bedrock's streams are not SSE), else read whole and converted;
 * - an event stream in the client's own format: forwarded chunk by chunk (metered when capped);
 * - speech: piped as it comes (audio, not JSON);
 * - anything else: read whole, checked and forwarded.
 */
export function deliverAnswer(plan: AnswerPlan, options: DeliverOptions, settings: AnswerSettings): Promise<Delivery> | Delivery {
  const { input, chat, meter } = plan;
  const contentType = String(options.upstream.headers['content-type'] ?? '');
  // A stream request answered whole has no undici body timeout: the watchdog bounds it.
  const wholeAnswerWatchdog = input.stream ? settings.watchdog : undefined;
  if (chat) {
    if (input.stream && !contentType.includes('application/json')) {
      const reader = meter
        ? chat.translation.meteredStreamReader(chat.frames, options.completionCheck, meter)
        : chat.translation.streamReader(chat.frames, options.completionCheck);
      const errorType = input.format === 'anthropic' ? 'api_error' : 'upstream_error';
      return deliverStream(options, {
        forwardUsage: true,
        watchdog: settings.watchdog,
        queueLength: settings.queueLength,
        reader,
        errorEvent: (message) => reader.errorEvent(message, errorType),
        contentType: chat.translation.jsonArray ? 'application/json; charset=UTF-8' : undefined,
      });
    }
    return deliverBuffered(options, {
      maxBufferedBytes: settings.maxBufferedBytes,
      fields: input.fields,
      watchdog: wholeAnswerWatchdog,
      translation: chat.translation,
    });
  }
  if (contentType.includes('text/event-stream')) {
    return deliverStream(options, {
      forwardUsage: !plan.askedStreamUsage,
      watchdog: settings.watchdog,
      queueLength: settings.queueLength,
      reader: meter ? cappedStreamReader(input, plan.adaptor, plan.askedStreamUsage, options.completionCheck, meter) : undefined,
      errorEvent: undefined,
      contentType: undefined,
    });
  }
  if (options.endpoint === 'speech') return deliverPiped(options);
  return deliverBuffered(options, {
    maxBufferedBytes: settings.maxBufferedBytes,
    fields: input.fields,
    watchdog: wholeAnswerWatchdog,
    translation: undefined,
  });
}
