import { CHANNEL_TYPES, ChannelType, channelTypeInfo, type ChannelTypeInfo } from '@modelgate/contract';

/**
 * new-api's GET /api/models: for every channel type number, the models that type offers, which
 * the channel form fills in for a new channel of that type (and caches in the browser). The
 * models are the priced ones (ModelRatio and ModelPrice) whose names the type serves.
 */
export function modelsByChannelType(pricedModels: Iterable<string>): Record<string, string[]> {
  const priced = [...new Set(pricedModels)].sort((a, b) => a.localeCompare(b));
  const openai = channelTypeInfo(ChannelType.OpenAI)?.models;
  // A type's own names (contract row), else the names only the form offers; OpenAI's resellers get OpenAI's list.
  const patternOf = (info: ChannelTypeInfo): RegExp | undefined => (info.offers === 'openai' ? openai : (info.models ?? info.offers));
  const result: Record<string, string[]> = {};
  for (const info of CHANNEL_TYPES) {
    const pattern = patternOf(info);
    result[String(info.value)] = pattern ? priced.filter((model) => pattern.test(model)) : [];
  }
  return result;
}
