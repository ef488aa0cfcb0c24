import { createPublicKey, createVerify, generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { LocalServer, type ReceivedRequest } from '../../../lib/testing/local-server.js';
import { anthropicThinkingProblem, mockAnthropicMessage, mockAnthropicSse, mockAnthropicTokenCount } from '../../anthropic/testing/mock-anthropic.js';
import { isMockFailure, type MockCountScript, type MockFailure, type MockRequestRecord, type MockScript, type MockTurn } from '../../testing/mock-turn.js';
import { geminiRequestProblem, mockGeminiResponse, mockGeminiStreamResponses, mockGeminiTokenCount } from '../../gemini/testing/mock-gemini.js';

/**
 * Vertex AI on 127.0.0.1 with its own OAuth token endpoint (`POST /token`), checking what Google
 * checks: the JWT assertion's RS256 signature against the service account's public key, its iss,
 * aud, scope and lifetime; the aiplatform paths then require a token it issued and has not
 * expired (401 UNAUTHENTICATED otherwise) and the account's project. Claude models
 * (`publishers/anthropic`) answer in Anthropic's format, the rest (`publishers/google`) in Gemini's.
 */
export interface MockVertexOptions {
  projectId?: string;
  clientEmail?: string;
  /** The account's public key; default: the mock makes a key pair and hands out the private half. */
  publicKey?: KeyObject | string;
  script?: MockScript;
  /** expires_in of the tokens it issues (default 3599 s). */
  tokenExpiresIn?: number;
  /** What Claude's count-tokens and Gemini's countTokens answer (default, or undefined from it: the mocks' own counts). */
  countTokens?: MockCountScript;
  /** Check Claude's thinking in the history as Claude does (anthropicThinkingProblem). */
  checkThinking?: boolean;
}

export interface MockTokenRequest {
  claims: Record<string, unknown>;
  issued: string | undefined;
}

export interface MockVertex {
  url: string;
  /** `${url}/token` */
  tokenUri: string;
  projectId: string;
  clientEmail: string;
  /** A service-account JSON key for this mock (token_uri pointing at it); empty when a publicKey was given. */
  serviceAccountKey: string;
  tokenRequests: MockTokenRequest[];
  requests: MockRequestRecord[];
  setScript(script: MockScript): void;
  setCountScript(script: MockCountScript | undefined): void;
  setTokenExpiresIn(seconds: number): void;
  /** Makes the token endpoint fail (Google's OAuth error shape) until cleared with undefined. */
  setTokenFailure(failure: { status: number; error: string; description: string } | undefined): void;
  /** Every token issued so far stops working. */
  revokeTokens(): void;
  close(): Promise<void>;
}

/** A service-account JSON key as Google's console downloads it. */
export function serviceAccountKeyJson(fields: { projectId: string; clientEmail: string; privateKeyPem: string; tokenUri: string }): string {
  return JSON.stringify({
    type: 'service_account',
    project_id: fields.projectId,
    private_key_id: randomBytes(20).toString('hex'),
    private_key: fields.privateKeyPem,
    client_email: fields.clientEmail,
    client_id: '100000000000000000000',
    auth_uri: 'https://accounts.google.com/o/oauth2/auth',
    token_uri: fields.tokenUri,
  });
}

const DEFAULT_TURN: MockTurn = { text: 'Hello from Vertex.', usage: { input: 12, output: 6 } };
const GOOGLE_STATUS: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
};

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json; charset=UTF-8' });
  response.end(JSON.stringify(body));
}

const sendGoogleError = (response: ServerResponse, status: number, message: string, googleStatus?: string): void =>
  sendJson(response, status, { error: { code: status, message, status: googleStatus ?? GOOGLE_STATUS[status] ?? 'UNKNOWN' } });

/** Claude's own failures (overloaded_error …) keep Anthropic's shape on Vertex; the platform's are Google's. */
function sendFailure(response: ServerResponse, failure: MockFailure): void {
  if (failure.type?.endsWith('_error')) return sendJson(response, failure.status, { type: 'error', error: { type: failure.type, message: failure.message } });
  sendGoogleError(response, failure.status, failure.message, failure.type);
}

/** Vertex, unlike the Gemini API, has no `id` in FunctionResponse (new-api strips it for Vertex). */
function functionResponseIdProblem(body: Record<string, unknown>): string | undefined {
  const contents = Array.isArray(body.contents) ? (body.contents as unknown[]) : [];
  for (const [index, content] of contents.entries()) {
    const parts =
      typeof content === 'object' && content !== null && Array.isArray((content as Record<string, unknown>).parts)
        ? ((content as Record<string, unknown>).parts as unknown[])
        : [];
    for (const [partIndex, part] of parts.entries()) {
      const response = typeof part === 'object' && part !== null ? (part as Record<string, unknown>).functionResponse : undefined;
      if (typeof response === 'object' && response !== null && 'id' in response) {
        return `Invalid JSON payload received. Unknown name "id" at 'contents[${index}].parts[${partIndex}].function_response': Cannot find field.`;
      }
    }
  }
  return undefined;
}

const CLAUDE_COUNT_FIELDS: ReadonlySet<string> = new Set(['anthropic_version', 'model', 'messages', 'system', 'tools', 'tool_choice', 'thinking']);
const GEMINI_COUNT_FIELDS: ReadonlySet<string> = new Set([
  'contents',
  'systemInstruction',
  'system_instruction',
  'tools',
  'generationConfig',
  'instances',
  'model',
]);

const decodeSegment = (segment: string): Record<string, unknown> => JSON.parse(Buffer.from(segment, 'base64url').toString('utf8')) as Record<string, unknown>;

export async function startMockVertex(options: MockVertexOptions = {}): Promise<MockVertex> {
  const projectId = options.projectId ?? 'mock-project';
  const clientEmail = options.clientEmail ?? `relay@${projectId}.iam.gserviceaccount.com`;
  let publicKey: KeyObject;
  let privateKeyPem = '';
  if (options.publicKey) publicKey = typeof options.publicKey === 'string' ? createPublicKey(options.publicKey) : options.publicKey;
  else {
    const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
    publicKey = pair.publicKey;
    privateKeyPem = pair.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
  }
  let script: MockScript = options.script ?? (() => DEFAULT_TURN);
  let countScript = options.countTokens;
  let expiresIn = options.tokenExpiresIn ?? 3599;
  let tokenFailure: { status: number; error: string; description: string } | undefined;
  const tokens = new Map<string, number>();
  const tokenRequests: MockTokenRequest[] = [];
  const requests: MockRequestRecord[] = [];
  let tokenUri = '';

  const handleToken = (request: ReceivedRequest, response: ServerResponse): void => {
    const form = new URLSearchParams(request.body);
    const invalidGrant = (description: string): void => sendJson(response, 400, { error: 'invalid_grant', error_description: description });
    if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer')
      return sendJson(response, 400, { error: 'unsupported_grant_type', error_description: 'Invalid grant_type' });
    const parts = (form.get('assertion') ?? '').split('.');
    if (parts.length !== 3) return invalidGrant('Invalid JWT: not three segments.');
    let header: Record<string, unknown>;
    let claims: Record<string, unknown>;
    try {
      header = decodeSegment(parts[0]!);
      claims = decodeSegment(parts[1]!);
    } catch {
      return invalidGrant('Invalid JWT: segments are not base64url JSON.');
    }
    const record: MockTokenRequest = { claims, issued: undefined };
    tokenRequests.push(record);
    if (header.alg !== 'RS256') return invalidGrant('Invalid JWT: alg must be RS256.');
    const signatureValid = createVerify('RSA-SHA256').update(`${parts[0]}.${parts[1]}`).verify(publicKey, Buffer.from(parts[2]!, 'base64url'));
    if (!signatureValid) return invalidGrant('Invalid JWT Signature.');
    if (claims.iss !== clientEmail) return invalidGrant('Invalid JWT: iss is not this service account.');
    if (claims.aud !== tokenUri) return invalidGrant(`Invalid JWT: aud must be ${tokenUri}.`);
    if (typeof claims.scope !== 'string' || !claims.scope.split(' ').includes('https://www.googleapis.com/auth/cloud-platform')) {
      return sendJson(response, 400, { error: 'invalid_scope', error_description: 'cloud-platform scope required.' });
    }
    const now = Math.floor(Date.now() / 1000);
    const iat = Number(claims.iat);
    const exp = Number(claims.exp);
    if (!Number.isFinite(iat) || !Number.isFinite(exp) || exp <= now || iat > now + 60 || exp - iat > 3600) {
      return invalidGrant('Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe.');
    }
    if (tokenFailure) return sendJson(response, tokenFailure.status, { error: tokenFailure.error, error_description: tokenFailure.description });
    const token = `ya29.mock-${tokenRequests.length}-${randomBytes(12).toString('hex')}`;
    tokens.set(token, Date.now() + expiresIn * 1000);
    record.issued = token;
    sendJson(response, 200, { access_token: token, expires_in: expiresIn, token_type: 'Bearer' });
  };

  /** count-tokens:rawPredict: the model in the body, with Vertex's anthropic_version (…/partner-models/claude/count-tokens). */
  const countClaudeTokens = (response: ServerResponse, body: Record<string, unknown>): void => {
    const invalid = (message: string): void => sendJson(response, 400, { type: 'error', error: { type: 'invalid_request_error', message } });
    if (body.anthropic_version !== 'vertex-2023-10-16') return invalid("anthropic_version: Input should be 'vertex-2023-10-16'");
    if (typeof body.model !== 'string' || !/^claude-[a-z0-9.-]+@\d{8}$/.test(body.model))
      return invalid('model: a Vertex Claude model id (name@version) is required');
    if (!Array.isArray(body.messages)) return invalid('messages: Field required');
    const extra = Object.keys(body).find((field) => !CLAUDE_COUNT_FIELDS.has(field));
    if (extra) return invalid(`${extra}: Extra inputs are not permitted`);
    const counted = countScript?.(body) ?? mockAnthropicTokenCount(body);
    if (isMockFailure(counted)) return sendFailure(response, counted);
    sendJson(response, 200, { input_tokens: counted });
  };

  /** A Gemini model's countTokens: CountTokensRequest's prompt fields; answered with totalTokens and totalBillableCharacters. */
  const countGeminiTokens = (response: ServerResponse, body: Record<string, unknown>): void => {
    const unknown = Object.keys(body).find((field) => !GEMINI_COUNT_FIELDS.has(field));
    if (unknown) return sendGoogleError(response, 400, `Invalid JSON payload received. Unknown name "${unknown}": Cannot find field.`);
    if (!Array.isArray(body.contents) || body.contents.length === 0) return sendGoogleError(response, 400, 'contents is required.');
    const problem = functionResponseIdProblem(body);
    if (problem) return sendGoogleError(response, 400, problem);
    const counted = countScript?.(body) ?? mockGeminiTokenCount(body);
    if (isMockFailure(counted)) return sendFailure(response, counted);
    sendJson(response, 200, { totalTokens: counted, totalBillableCharacters: counted * 4 });
  };

  const handlePredict = (request: ReceivedRequest, response: ServerResponse, body: unknown): void => {
    const [pathname = '', query = ''] = request.url.split('?');
    const route = /^\/v1\/projects\/([^/]+)\/locations\/([^/]+)\/publishers\/(google|anthropic)\/models\/([^/:]+):([A-Za-z]+)$/.exec(pathname);
    if (!route) return sendGoogleError(response, 404, `The requested URL ${pathname} was not found on this server.`);
    const [, project, , publisher, rawModel, method] = route as unknown as [string, string, string, string, string, string];
    const authorization = request.headers.authorization ?? '';
    const expiresAt = tokens.get(authorization.replace(/^Bearer /, ''));
    if (!authorization.startsWith('Bearer ') || expiresAt === undefined || Date.now() >= expiresAt) {
      return sendGoogleError(
        response,
        401,
        'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
      );
    }
    if (decodeURIComponent(project) !== projectId)
      return sendGoogleError(response, 403, `Permission denied on resource project ${decodeURIComponent(project)}.`);
    const model = decodeURIComponent(rawModel);
    const record = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
    if (publisher === 'anthropic' && model === 'count-tokens' && method === 'rawPredict') return countClaudeTokens(response, record);
    if (publisher === 'google' && method === 'countTokens') return countGeminiTokens(response, record);
    if (publisher === 'anthropic') {
      if (method !== 'rawPredict' && method !== 'streamRawPredict')
        return sendGoogleError(response, 400, `Method ${method} is not supported for Anthropic models.`);
      if (!/^claude-[a-z0-9.-]+(@\d{8})?$/.test(model) || /-\d{8}$/.test(model))
        return sendGoogleError(response, 404, `Publisher Model \`publishers/anthropic/models/${model}\` not found.`);
      if (record.anthropic_version !== 'vertex-2023-10-16') {
        return sendJson(response, 400, {
          type: 'error',
          error: { type: 'invalid_request_error', message: "anthropic_version: Input should be 'vertex-2023-10-16'" },
        });
      }
      if (!Array.isArray(record.messages) || typeof record.max_tokens !== 'number') {
        return sendJson(response, 400, { type: 'error', error: { type: 'invalid_request_error', message: 'messages and max_tokens are required' } });
      }
      const thinkingProblem = options.checkThinking ? anthropicThinkingProblem(record) : undefined;
      if (thinkingProblem) return sendJson(response, 400, { type: 'error', error: { type: 'invalid_request_error', message: thinkingProblem } });
      const answer = script(body, pathname);
      if (isMockFailure(answer)) return sendFailure(response, answer);
      // The body decides: streamRawPredict without "stream": true answers one Message, as Vertex does.
      if (record.stream === true) {
        response.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
        return void response.end(mockAnthropicSse(answer, model));
      }
      return sendJson(response, 200, mockAnthropicMessage(answer, model));
    }
    if (method !== 'generateContent' && method !== 'streamGenerateContent') return sendGoogleError(response, 400, `Method ${method} is not supported.`);
    const problem = geminiRequestProblem(body) ?? functionResponseIdProblem(record);
    if (problem) return sendGoogleError(response, 400, problem);
    const answer = script(body, pathname);
    if (isMockFailure(answer)) return sendFailure(response, answer);
    if (method === 'generateContent') return sendJson(response, 200, mockGeminiResponse(answer, model));
    if (new URLSearchParams(query).get('alt') === 'sse') {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      // Google separates SSE events with CRLF pairs.
      return void response.end(
        mockGeminiStreamResponses(answer, model)
          .map((chunk) => `data: ${JSON.stringify(chunk)}\r\n\r\n`)
          .join(''),
      );
    }
    // Without alt=sse Google streams one JSON array.
    sendJson(response, 200, mockGeminiStreamResponses(answer, model));
  };

  const server = await new LocalServer((request, response) => {
    const [pathname = ''] = request.url.split('?');
    if (request.method === 'POST' && pathname === '/token') return handleToken(request, response);
    let body: unknown;
    try {
      body = request.body === '' ? undefined : JSON.parse(request.body);
    } catch {
      return sendGoogleError(response, 400, 'Invalid JSON payload received.');
    }
    requests.push({ method: request.method, path: request.url, headers: request.headers, body, rawBody: request.body });
    if (request.method !== 'POST') return sendGoogleError(response, 404, `No route for ${request.method} ${pathname}`);
    return handlePredict(request, response, body);
  }).start();
  tokenUri = `${server.url}/token`;

  return {
    url: server.url,
    tokenUri,
    projectId,
    clientEmail,
    serviceAccountKey: privateKeyPem === '' ? '' : serviceAccountKeyJson({ projectId, clientEmail, privateKeyPem, tokenUri }),
    tokenRequests,
    requests,
    setScript: (next) => {
      script = next;
    },
    setCountScript: (next) => {
      countScript = next;
    },
    setTokenExpiresIn: (seconds) => {
      expiresIn = seconds;
    },
    setTokenFailure: (failure) => {
      tokenFailure = failure;
    },
    revokeTokens: () => tokens.clear(),
    close: () => server.close(),
  };
}
