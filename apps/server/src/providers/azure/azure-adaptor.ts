import type { OpenAIEndpoint } from '@modelgate/protocol';
import { createOpenAICompatibleAdaptor, websocketOrigin } from '../openai-compatible/openai-compatible-adaptor.js';
import type { ProviderAdaptor, RealtimeCall, RealtimeTarget, UpstreamCall } from '../provider-types.js';

/** Used when the channel's `other` field names no api-version. */
export const AZURE_DEFAULT_API_VERSION = '2024-10-21';

/** Paths below /openai/deployments/{deployment}/. */
const DEPLOYMENT_PATHS: Partial<Record<OpenAIEndpoint, string>> = {
  chat: 'chat/completions',
  completions: 'completions',
  embeddings: 'embeddings',
  images: 'images/generations',
  speech: 'audio/speech',
  transcriptions: 'audio/transcriptions',
  translations: 'audio/translations',
};

/** Azure deployments cannot contain dots, so `gpt-3.5-turbo` is deployed as `gpt-35-turbo`. */
export const azureDeploymentName = (model: string): string => model.replaceAll('.', '');

export function azureTarget(call: UpstreamCall): { origin: string; path: string } {
  const version = encodeURIComponent(call.channel.other.trim() || AZURE_DEFAULT_API_VERSION);
  const base = call.channel.basePath;
  // The Responses API is per resource, not per deployment; the model travels in the body.
  if (call.endpoint === 'responses') return { origin: call.channel.origin, path: `${base}/openai/responses?api-version=${version}` };
  const deployment = encodeURIComponent(azureDeploymentName(call.upstreamModel));
  return {
    origin: call.channel.origin,
    path: `${base}/openai/deployments/${deployment}/${DEPLOYMENT_PATHS[call.endpoint]}?api-version=${version}`,
  };
}

/** The api-version of Azure's Realtime API when the channel's `other` names none (the chat default predates it). */
export const AZURE_REALTIME_API_VERSION = '2025-04-01-preview';

/** Azure's Realtime API: per resource, the deployment in the query, the key in `api-key`. */
export function azureRealtimeTarget(call: RealtimeCall): RealtimeTarget {
  const version = encodeURIComponent(call.channel.other.trim() || AZURE_REALTIME_API_VERSION);
  const deployment = encodeURIComponent(azureDeploymentName(call.upstreamModel));
  return {
    url: `${websocketOrigin(call.channel.origin)}${call.channel.basePath}/openai/realtime?api-version=${version}&deployment=${deployment}`,
    headers: { 'api-key': call.key },
  };
}

export const azureAdaptor: ProviderAdaptor = {
  ...createOpenAICompatibleAdaptor({
    name: 'azure',
    streamUsageOption: true,
    chatOutputLimitField: 'max_completion_tokens',
    endpoints: new Set([...(Object.keys(DEPLOYMENT_PATHS) as OpenAIEndpoint[]), 'responses']),
    target: (call) => azureTarget(call),
    authHeaders: (call) => ({ 'api-key': call.key }),
  }),
  realtimeTarget: azureRealtimeTarget,
};
