import { CHANNEL_TYPES, ChannelType } from '@modelgate/contract';
import { anthropicAdaptor } from './anthropic/anthropic-adaptor.js';
import { bedrockAdaptor } from './aws-bedrock/bedrock-adaptor.js';
import { azureAdaptor } from './azure/azure-adaptor.js';
import { cohereAdaptor } from './cohere/cohere-adaptor.js';
import { customAdaptor } from './custom/custom-adaptor.js';
import { geminiAdaptor } from './gemini/gemini-adaptor.js';
import { createOpenAICompatibleAdaptor } from './openai-compatible/openai-compatible-adaptor.js';
import { VENDOR_OVERRIDES } from './openai-compatible/vendor-overrides.js';
import type { ProviderAdaptor } from './provider-types.js';
import { vertexAdaptor } from './vertex/vertex-adaptor.js';

/**
 * The only place a provider is registered. Every type the contract table relays as 'openai' gets
 * an adaptor from the factory (Azure and Custom build their URLs their own way); each 'native'
 * type names its adaptor here. registry.test.ts walks the table against this map.
 */
const SPECIAL: ReadonlyMap<number, ProviderAdaptor> = new Map([
  [ChannelType.Azure, azureAdaptor],
  [ChannelType.Custom, customAdaptor],
  [ChannelType.Cohere, cohereAdaptor],
  [ChannelType.Anthropic, anthropicAdaptor],
  [ChannelType.Gemini, geminiAdaptor],
  [ChannelType.AwsClaude, bedrockAdaptor],
  [ChannelType.VertexAI, vertexAdaptor],
]);

const adaptors = new Map<number, ProviderAdaptor>();
for (const info of CHANNEL_TYPES) {
  const special = SPECIAL.get(info.value);
  if (special) adaptors.set(info.value, special);
  else if (info.openaiCompatible) {
    adaptors.set(info.value, createOpenAICompatibleAdaptor({ name: info.name, streamUsageOption: false, ...VENDOR_OVERRIDES[info.value] }));
  }
}

/** The adaptor for a channel type, or undefined when this version cannot relay to it. */
export const adaptorFor = (type: number): ProviderAdaptor | undefined => adaptors.get(type);
