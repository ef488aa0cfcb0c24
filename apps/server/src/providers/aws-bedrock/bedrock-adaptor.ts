import { OpenAIStreamReader } from '@modelgate/protocol';
import { z } from 'zod';
import { AppError } from '../../errors/app-error.js';
import { awsPayloadHash, awsUriEncode, signSigV4 } from '../../lib/aws-sigv4.js';
import type { ChannelEndpoint, ErrorVerdict, NativeChatCall, ProviderAdaptor, UpstreamFailure, UpstreamRequest } from '../provider-types.js';
import { BedrockFrameDecoder } from './bedrock-event-stream.js';
import { cloudClaudeFields } from '../shared/cloud-claude-fields.js';
import { bedrockFoundationModelId, bedrockModelId } from './bedrock-models.js';

/** What Bedrock requires in an Anthropic body in place of the anthropic-version header. */
export const BEDROCK_ANTHROPIC_VERSION = 'bedrock-2023-05-31';
export const BEDROCK_KEY_FORMAT = 'AccessKeyId|SecretAccessKey|Region';
/** max_tokens in the InvokeModel body of a count request that named none. */
const BEDROCK_COUNT_MAX_TOKENS = 1024;

export type BedrockCredentials =
  | { kind: 'sigv4'; accessKeyId: string; secretAccessKey: string; region: string }
  /** A Bedrock API key (new-api's two-part `ApiKey|Region`), sent as a Bearer token. */
  | { kind: 'api-key'; apiKey: string; region: string };

/** us-east-1, eu-central-2, us-gov-west-1, ap-southeast-3 … (the region becomes part of a host name). */
const REGION_PATTERN = /^[a-z]{2}(-[a-z]+)+-\d{1,2}$/;

const keyProblem = (what: string): AppError =>
  new AppError('channel:invalid_key', `AWS Claude 渠道的密钥格式应为 ${BEDROCK_KEY_FORMAT}：${what} (the channel key must be ${BEDROCK_KEY_FORMAT})`, {
    status: 500,
    retryable: true,
    type: 'channel_error',
  });

/** Reads new-api's key field: `AccessKeyId|SecretAccessKey|Region`, or `ApiKey|Region`. Errors never quote the key. */
export function parseBedrockKey(key: string): BedrockCredentials {
  const parts = key.split('|').map((part) => part.trim());
  const region = parts.at(-1) ?? '';
  if (parts.length !== 2 && parts.length !== 3) throw keyProblem(`找到 ${parts.length} 段，应为 3 段 (found ${parts.length} parts separated by |, expected 3)`);
  if (parts.some((part) => part === '')) throw keyProblem('有空的部分 (a part is empty)');
  if (!REGION_PATTERN.test(region)) throw keyProblem(`最后一段应为区域，例如 us-east-1 (the last part must be a region such as us-east-1)`);
  if (parts.length === 2) return { kind: 'api-key', apiKey: parts[0]!, region };
  return { kind: 'sigv4', accessKeyId: parts[0]!, secretAccessKey: parts[1]!, region };
}

/** Signs (or bears) a request for Bedrock and returns the headers to send (host left to the HTTP client). */
function authorise(
  credentials: BedrockCredentials,
  request: { method: 'GET' | 'POST'; origin: string; path: string; query: string; headers: Record<string, string>; body: string },
): Record<string, string> {
  const headers = { ...request.headers, 'x-amz-content-sha256': awsPayloadHash(request.body) };
  if (credentials.kind === 'api-key') return { ...headers, authorization: `Bearer ${credentials.apiKey}` };
  const signed = signSigV4({
    method: request.method,
    host: new URL(request.origin).host,
    path: request.path,
    query: request.query,
    headers,
    body: request.body,
    service: 'bedrock',
    region: credentials.region,
    credentials,
  }).headers;
  delete signed.host;
  return signed;
}

/** The channel's base URL when set (tests, a VPC endpoint), else the region's public endpoint. */
const originFor = (channel: ChannelEndpoint, defaultOrigin: string): { origin: string; basePath: string } =>
  channel.origin === '' ? { origin: defaultOrigin, basePath: '' } : { origin: channel.origin, basePath: channel.basePath };

/**
 * The Anthropic body as Bedrock takes it: the fields it knows (no model or stream: the path says
 * both), its version, and the client's anthropic-beta flags in the body.
 */
export function bedrockBody(call: Pick<NativeChatCall, 'body' | 'clientHeaders'>): Record<string, unknown> {
  const body: Record<string, unknown> = { ...cloudClaudeFields(call.body), anthropic_version: BEDROCK_ANTHROPIC_VERSION };
  const betaHeader = Object.entries(call.clientHeaders).find(([name]) => name.toLowerCase() === 'anthropic-beta')?.[1] ?? '';
  const betas = betaHeader
    .split(',')
    .map((beta) => beta.trim())
    .filter((beta) => beta !== '');
  if (betas.length > 0) {
    const existing = Array.isArray(body.anthropic_beta) ? body.anthropic_beta.filter((beta): beta is string => typeof beta === 'string') : [];
    body.anthropic_beta = [...new Set([...existing, ...betas])];
  }
  return body;
}

export function buildBedrockChatRequest(call: NativeChatCall): UpstreamRequest {
  const credentials = parseBedrockKey(call.key);
  const { origin, basePath } = originFor(call.channel, `https://bedrock-runtime.${credentials.region}.amazonaws.com`);
  const modelId = bedrockModelId(call.upstreamModel, credentials.region);
  const path = `${basePath}/model/${awsUriEncode(modelId)}/${call.stream ? 'invoke-with-response-stream' : 'invoke'}`;
  const body = JSON.stringify(bedrockBody(call));
  const headers = authorise(credentials, {
    method: 'POST',
    origin,
    path,
    query: '',
    headers: { 'content-type': 'application/json', accept: call.stream ? 'application/vnd.amazon.eventstream' : 'application/json' },
    body,
  });
  return { origin, path, method: 'POST', headers, body };
}

/**
 * CountTokens (POST /model/{modelId}/count-tokens): the InvokeModel body it would send, base64 in
 * `input.invokeModel.body`; answered `{ "inputTokens": n }`. InvokeModel's body needs max_tokens,
 * which a count request has none of: one is filled in (it changes no count).
 */
export function buildBedrockCountRequest(call: NativeChatCall): UpstreamRequest {
  const credentials = parseBedrockKey(call.key);
  const { origin, basePath } = originFor(call.channel, `https://bedrock-runtime.${credentials.region}.amazonaws.com`);
  const path = `${basePath}/model/${awsUriEncode(bedrockFoundationModelId(call.upstreamModel))}/count-tokens`;
  const invoke = bedrockBody(call);
  if (typeof invoke.max_tokens !== 'number') {
    // Above a thinking budget, as InvokeModel requires.
    const thinking = invoke.thinking as { budget_tokens?: unknown } | undefined;
    const budget = typeof thinking?.budget_tokens === 'number' ? thinking.budget_tokens : 0;
    invoke.max_tokens = budget + BEDROCK_COUNT_MAX_TOKENS;
  }
  const body = JSON.stringify({ input: { invokeModel: { body: Buffer.from(JSON.stringify(invoke)).toString('base64') } } });
  const headers = authorise(credentials, {
    method: 'POST',
    origin,
    path,
    query: '',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body,
  });
  return { origin, path, method: 'POST', headers, body };
}

export function bedrockCountOf(answer: unknown): number | undefined {
  if (answer === null || typeof answer !== 'object') return undefined;
  const tokens = (answer as Record<string, unknown>).inputTokens;
  return typeof tokens === 'number' && Number.isInteger(tokens) && tokens >= 0 ? tokens : undefined;
}

export function buildBedrockModelListRequest(channel: ChannelEndpoint, key: string): UpstreamRequest {
  const credentials = parseBedrockKey(key);
  const { origin, basePath } = originFor(channel, `https://bedrock.${credentials.region}.amazonaws.com`);
  const path = `${basePath}/foundation-models`;
  const query = 'byProvider=anthropic';
  const headers = authorise(credentials, { method: 'GET', origin, path, query, headers: { accept: 'application/json' }, body: '' });
  return { origin, path: `${path}?${query}`, method: 'GET', headers, body: '' };
}

/** ListFoundationModels' answer (docs.aws.amazon.com/bedrock/latest/APIReference/API_ListFoundationModels.html). */
const foundationModels = z.object({ modelSummaries: z.array(z.object({ modelId: z.string() }).loose()) }).loose();

export function parseBedrockModelList(answer: unknown): string[] {
  const parsed = foundationModels.safeParse(answer);
  return parsed.success ? parsed.data.modelSummaries.map((summary) => summary.modelId) : [];
}

/** Bedrock's error types (x-amzn-errortype, or a name in the message) that mean the credentials are unusable. */
const CREDENTIAL_ERRORS = [
  'accessdenied',
  'unrecognizedclient',
  'invalidsignature',
  'expiredtoken',
  'incompletesignature',
  'missingauthenticationtoken',
  'the security token included in the request is invalid',
  'the request signature we calculated does not match',
  "you don't have access to the model",
];

export function classifyBedrockError(failure: UpstreamFailure): ErrorVerdict {
  const text = `${failure.type} ${failure.code} ${failure.message}`.toLowerCase();
  const status = failure.status;
  const credentialsRefused = status === 401 || status === 403 || CREDENTIAL_ERRORS.some((marker) => text.includes(marker));
  if (credentialsRefused) return { retryable: true, disableChannel: true };
  // 408 ModelTimeoutException, 424 ModelErrorException, 429 Throttling, 5xx (529 overloaded) may pass on another channel;
  // 504/524 are the upstream's gateway timing out, where another try only doubles the wait.
  const passing = status === 408 || status === 424 || status === 429 || (status >= 500 && status !== 504 && status !== 524) || text.includes('throttling');
  return { retryable: passing, disableChannel: false };
}

export const bedrockAdaptor: ProviderAdaptor = {
  name: 'aws-bedrock',
  streamUsageOption: false,
  ownOrigin: true,
  supports: (endpoint) => endpoint === 'chat',
  buildRequest: () => {
    throw new AppError('relay:unsupported', 'AWS Claude channels serve chat only', { status: 400 });
  },
  parseUsage: () => undefined,
  completionText: () => [],
  readStream: (endpoint, dropUsageOnly) => new OpenAIStreamReader(endpoint, dropUsageOnly),
  classifyError: classifyBedrockError,
  nativeChat: {
    formatFor: () => 'anthropic',
    buildRequest: buildBedrockChatRequest,
    frameDecoder: () => new BedrockFrameDecoder(),
    tokenCount: { request: buildBedrockCountRequest, parse: bedrockCountOf },
  },
  modelList: { kind: 'fetch', request: buildBedrockModelListRequest, parse: parseBedrockModelList },
};
