import type { CompletionCheck } from '../domain/sensitive/sensitive-filter.js';
import type { ProviderAdaptor, StreamReader } from '../providers/provider-types.js';
import { ChatTranslation } from './chat-translation.js';
import { CompletionsEventMeter, MeteredEventReader } from './metered-event-stream.js';
import { ResponsesEventMeter } from './metered-responses-stream.js';
import type { OutputMeter } from './output-meter.js';
import type { RelayInput } from './relay-input.js';
import { SensitiveStreamReader } from './sensitive-answer.js';

/**
 * The reader of a capped call's stream on the plain OpenAI path (an OpenAI client, an
 * OpenAI-style channel), in place of the pass-through reader. Chat goes through the converting
 * reader with OpenAI's codec on both sides, so one meter over canonical chunks serves it as it
 * serves every other chat format (chat-translation.ts); legacy completions and the Responses API,
 * which have no codec, through their event meters, which forward the upstream's bytes until the cut.
 */
export function cappedStreamReader(
  input: RelayInput,
  adaptor: ProviderAdaptor,
  dropUsageOnly: boolean,
  check: CompletionCheck | undefined,
  meter: OutputMeter,
): StreamReader {
  const endpoint = input.spec.endpoint;
  if (endpoint === 'chat') return new ChatTranslation('openai', 'openai', input.model, input.clientAskedUsage).meteredStreamReader(undefined, check, meter);
  const own = adaptor.readStream(endpoint, dropUsageOnly);
  const inner = check ? new SensitiveStreamReader(own, endpoint, check) : own;
  return new MeteredEventReader(inner, endpoint === 'responses' ? new ResponsesEventMeter(meter) : new CompletionsEventMeter(meter, input.clientAskedUsage));
}
