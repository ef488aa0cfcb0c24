import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { EventStreamCodec } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import aws4 from 'aws4';
import { LocalServer, type ReceivedRequest } from '../../../lib/testing/local-server.js';
import { CLOUD_CLAUDE_FIELDS } from '../../shared/cloud-claude-fields.js';
import { isMockFailure, type MockCountScript, type MockFailure, type MockRequestRecord, type MockScript, type MockTurn } from '../../testing/mock-turn.js';
import { anthropicThinkingProblem, mockAnthropicMessage, mockAnthropicStreamEvents, mockAnthropicTokenCount } from '../../anthropic/testing/mock-anthropic.js';

/**
 * A Bedrock runtime on 127.0.0.1 that checks what AWS checks: every request's SigV4 signature is
 * recomputed with the independent `aws4` package from the received method, path, signed headers
 * and body, and must match; the credential scope must name this region and `bedrock`; the date
 * must be within 15 minutes; the body must be Bedrock's Anthropic body. Streams are encoded with
 * `@smithy/eventstream-codec`, the AWS SDK's own encoder.
 */
export interface MockBedrockOptions {
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  /** Also accept this Bedrock API key as `Authorization: Bearer`. */
  apiKey?: string;
  script?: MockScript;
  /** What CountTokens answers (default, or undefined from it: mockAnthropicTokenCount of the InvokeModel body). */
  countTokens?: MockCountScript;
  /** Check Claude's thinking in the history as Claude does (anthropicThinkingProblem). */
  checkThinking?: boolean;
}

export interface MockBedrock {
  url: string;
  requests: MockRequestRecord[];
  setScript(script: MockScript): void;
  setCountScript(script: MockCountScript | undefined): void;
  /** Streams then stop after `afterEvents` Anthropic events with this exception message (until cleared with undefined). */
  setStreamException(exception: { afterEvents: number; type: string; message: string } | undefined): void;
  close(): Promise<void>;
}

const DEFAULT_TURN: MockTurn = { text: 'Hello from Bedrock.', usage: { input: 12, output: 6 } };
const codec = new EventStreamCodec(toUtf8, fromUtf8);
const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

const DEFAULT_ERROR_TYPES: Record<number, string> = {
  400: 'ValidationException',
  403: 'AccessDeniedException',
  404: 'ResourceNotFoundException',
  408: 'ModelTimeoutException',
  424: 'ModelErrorException',
  429: 'ThrottlingException',
  500: 'InternalServerException',
  503: 'ServiceUnavailableException',
};

function sendError(response: ServerResponse, status: number, type: string, message: string): void {
  response.writeHead(status, {
    'content-type': 'application/json',
    'x-amzn-errortype': `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/`,
    'x-amzn-requestid': 'mock-request-id',
  });
  response.end(JSON.stringify({ message }));
}

const sendFailure = (response: ServerResponse, failure: MockFailure): void =>
  sendError(response, failure.status, failure.type ?? DEFAULT_ERROR_TYPES[failure.status] ?? 'InternalServerException', failure.message);

const header = (request: ReceivedRequest, name: string): string => {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(',') : (value ?? '');
};

/** Why the request's credentials or signature are refused, or undefined when they hold. */
function authenticationProblem(request: ReceivedRequest, options: MockBedrockOptions): { status: number; type: string; message: string } | undefined {
  const authorization = header(request, 'authorization');
  if (options.apiKey && authorization === `Bearer ${options.apiKey}`) return undefined;
  const match = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(
    authorization,
  );
  if (!match) return { status: 403, type: 'MissingAuthenticationTokenException', message: 'Missing Authentication Token' };
  const [, accessKeyId, day, region, service, signedHeaderList] = match as unknown as [string, string, string, string, string, string];
  if (accessKeyId !== options.accessKeyId)
    return { status: 403, type: 'UnrecognizedClientException', message: 'The security token included in the request is invalid.' };
  if (region !== options.region || service !== 'bedrock') {
    return {
      status: 403,
      type: 'InvalidSignatureException',
      message: `Credential should be scoped to a valid region and service bedrock, not '${region}/${service}'.`,
    };
  }
  const amzDate = header(request, 'x-amz-date');
  const signedAt = Date.parse(amzDate.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z'));
  if (!amzDate.startsWith(day) || Number.isNaN(signedAt) || Math.abs(Date.now() - signedAt) > 15 * 60_000) {
    return { status: 403, type: 'InvalidSignatureException', message: 'Signature expired or x-amz-date does not match the credential scope.' };
  }
  const names = signedHeaderList.split(';');
  if (!names.includes('host') || !names.includes('x-amz-date'))
    return { status: 403, type: 'InvalidSignatureException', message: "'Host' or 'X-Amz-Date' must be a signed header." };
  const contentHash = header(request, 'x-amz-content-sha256');
  if (contentHash !== '' && contentHash !== sha256(request.body)) {
    return { status: 400, type: 'ValidationException', message: "The provided 'x-amz-content-sha256' header does not match what was computed." };
  }
  const signedHeaders: Record<string, string> = {};
  for (const name of names) signedHeaders[name] = header(request, name);
  // aws4 adds a content-length and content-type of its own to a request with a body; only what the client signed counts.
  const extraHeadersToIgnore: Record<string, boolean> = {};
  for (const added of ['content-length', 'content-type']) if (!names.includes(added)) extraHeadersToIgnore[added] = true;
  const toSign: aws4.Request & { extraHeadersToIgnore: Record<string, boolean> } = {
    host: signedHeaders.host,
    method: request.method,
    path: request.url,
    service: 'bedrock',
    region,
    headers: signedHeaders,
    body: request.body,
    extraHeadersToIgnore,
  };
  const resigned = aws4.sign(toSign, { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey });
  if ((resigned.headers as Record<string, string>).Authorization !== authorization) {
    return {
      status: 403,
      type: 'InvalidSignatureException',
      message: 'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method.',
    };
  }
  return undefined;
}

/** What Bedrock's InvokeModel says about an Anthropic body it cannot take. */
function bodyProblem(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'Malformed input request, please reformat your input and try again.';
  const record = body as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (!CLOUD_CLAUDE_FIELDS.has(key)) return `Malformed input request: #: extraneous key [${key}] is not permitted, please reformat your input and try again.`;
  }
  if (record.anthropic_version !== 'bedrock-2023-05-31')
    return 'Malformed input request: #/anthropic_version: bedrock-2023-05-31 is required, please reformat your input and try again.';
  if (!Array.isArray(record.messages)) return 'Malformed input request: #: required key [messages] not found, please reformat your input and try again.';
  if (typeof record.max_tokens !== 'number')
    return 'Malformed input request: #: required key [max_tokens] not found, please reformat your input and try again.';
  return undefined;
}

const MODEL_ID = /^((us|eu|apac|global)\.)?anthropic\.claude-[a-z0-9.-]+(:\d+)?$/;
const FOUNDATION_MODEL_ID = /^anthropic\.claude-[a-z0-9.-]+(:\d+)?$/;

/** One event-stream message carrying an Anthropic event, as InvokeModelWithResponseStream sends it. */
export function bedrockChunkFrame(event: Record<string, unknown>): Buffer {
  const payload = JSON.stringify({ bytes: Buffer.from(JSON.stringify(event)).toString('base64') });
  return Buffer.from(
    codec.encode({
      headers: {
        ':event-type': { type: 'string', value: 'chunk' },
        ':content-type': { type: 'string', value: 'application/json' },
        ':message-type': { type: 'string', value: 'event' },
      },
      body: fromUtf8(payload),
    }),
  );
}

/** An exception message in the stream (e.g. throttlingException after some chunks). */
export function bedrockExceptionFrame(exceptionType: string, message: string): Buffer {
  return Buffer.from(
    codec.encode({
      headers: {
        ':exception-type': { type: 'string', value: exceptionType },
        ':content-type': { type: 'string', value: 'application/json' },
        ':message-type': { type: 'string', value: 'exception' },
      },
      body: fromUtf8(JSON.stringify({ message })),
    }),
  );
}

export async function startMockBedrock(options: MockBedrockOptions): Promise<MockBedrock> {
  let script: MockScript = options.script ?? (() => DEFAULT_TURN);
  let streamException: { afterEvents: number; type: string; message: string } | undefined;
  let countScript = options.countTokens;
  const requests: MockRequestRecord[] = [];
  /**
   * CountTokens (docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_CountTokens.html): a
   * foundation-model id (profiles are refused), the InvokeModel body base64 in input.invokeModel.body,
   * checked as InvokeModel checks it; answered { inputTokens }.
   */
  const countTokens = (response: ServerResponse, modelId: string, body: unknown): void => {
    if (!FOUNDATION_MODEL_ID.test(modelId)) return sendError(response, 400, 'ValidationException', "The provided model doesn't support counting tokens.");
    const encoded = (body as { input?: { invokeModel?: { body?: unknown } } } | undefined)?.input?.invokeModel?.body;
    if (typeof encoded !== 'string')
      return sendError(response, 400, 'ValidationException', '1 validation error detected: input must name invokeModel or converse.');
    let invoke: unknown;
    try {
      invoke = JSON.parse(Buffer.from(encoded, 'base64').toString('utf8'));
    } catch {
      return sendError(response, 400, 'ValidationException', 'Malformed input request, please reformat your input and try again.');
    }
    const problem = bodyProblem(invoke);
    if (problem) return sendError(response, 400, 'ValidationException', problem);
    const counted = countScript?.(invoke as Record<string, unknown>) ?? mockAnthropicTokenCount(invoke as Record<string, unknown>);
    if (isMockFailure(counted)) return sendFailure(response, counted);
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ inputTokens: counted }));
  };

  const server = await new LocalServer((request, response) => {
    let body: unknown;
    try {
      body = request.body === '' ? undefined : JSON.parse(request.body);
    } catch {
      body = undefined;
    }
    const [pathname = ''] = request.url.split('?');
    requests.push({ method: request.method, path: request.url, headers: request.headers, body, rawBody: request.body });
    const refused = authenticationProblem(request, options);
    if (refused) return sendError(response, refused.status, refused.type, refused.message);

    if (request.method === 'GET' && pathname === '/foundation-models') {
      const ids = ['anthropic.claude-3-5-sonnet-20241022-v2:0', 'anthropic.claude-3-7-sonnet-20250219-v1:0', 'anthropic.claude-sonnet-4-20250514-v1:0'];
      response.writeHead(200, { 'content-type': 'application/json' });
      return response.end(
        JSON.stringify({
          modelSummaries: ids.map((modelId) => ({
            modelId,
            providerName: 'Anthropic',
            modelArn: `arn:aws:bedrock:${options.region}::foundation-model/${modelId}`,
          })),
        }),
      );
    }
    const counting = /^\/model\/([^/]+)\/count-tokens$/.exec(pathname);
    if (request.method === 'POST' && counting) return countTokens(response, decodeURIComponent(counting[1]!), body);
    const route = /^\/model\/([^/]+)\/(invoke|invoke-with-response-stream)$/.exec(pathname);
    if (request.method !== 'POST' || !route) return sendError(response, 404, 'UnknownOperationException', `No operation for ${request.method} ${pathname}`);
    const modelId = decodeURIComponent(route[1]!);
    if (!MODEL_ID.test(modelId)) return sendError(response, 400, 'ValidationException', 'The provided model identifier is invalid.');
    const problem = bodyProblem(body) ?? (options.checkThinking ? anthropicThinkingProblem(body as Record<string, unknown>) : undefined);
    if (problem) return sendError(response, 400, 'ValidationException', problem);

    const answer = script(body, pathname);
    if (isMockFailure(answer)) return sendFailure(response, answer);
    const model = modelId.replace(/^((us|eu|apac|global)\.)?anthropic\./, '').replace(/-v\d+(:\d+)?$/, '');
    if (route[2] === 'invoke') {
      response.writeHead(200, { 'content-type': 'application/json', 'x-amzn-bedrock-input-token-count': String(answer.usage.input) });
      return response.end(JSON.stringify(mockAnthropicMessage(answer, model)));
    }
    response.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream', 'x-amzn-bedrock-content-type': 'application/json' });
    let frames = mockAnthropicStreamEvents(answer, model).map(bedrockChunkFrame);
    if (streamException) frames = [...frames.slice(0, streamException.afterEvents), bedrockExceptionFrame(streamException.type, streamException.message)];
    // Written as several TCP writes, one frame cut in two, so readers meet partial frames.
    for (const frame of frames) {
      const cut = Math.floor(frame.length / 2);
      response.write(frame.subarray(0, cut));
      response.write(frame.subarray(cut));
    }
    return response.end();
  }).start();
  return {
    url: server.url,
    requests,
    setScript: (next) => {
      script = next;
    },
    setCountScript: (next) => {
      countScript = next;
    },
    setStreamException: (exception) => {
      streamException = exception;
    },
    close: () => server.close(),
  };
}
