import { createOpenAICompatibleAdaptor } from '../openai-compatible/openai-compatible-adaptor.js';
import type { ProviderAdaptor } from '../provider-types.js';

/**
 * Custom channels (type 8): the base URL is the full URL every call goes to, as in new-api;
 * `{model}` in it is replaced by the upstream model name.
 */
export const customAdaptor: ProviderAdaptor = createOpenAICompatibleAdaptor({
  name: 'custom',
  streamUsageOption: true,
  target: (call) => ({ origin: call.channel.origin, path: call.channel.basePath.replaceAll('{model}', encodeURIComponent(call.upstreamModel)) }),
});
