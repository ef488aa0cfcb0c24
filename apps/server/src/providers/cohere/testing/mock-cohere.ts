import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { LocalServer, type ReceivedRequest } from '../../../lib/testing/local-server.js';
import { isMockFailure, type MockFailure, type MockRequestRecord, type MockScript, type MockTurn } from '../../testing/mock-turn.js';
import { cohereChatResponse, cohereChatStream } from './cohere-turn.js';

/**
 * A Cohere v2 API over real HTTP for tests: POST /v2/chat (whole, and SSE streams in Cohere's v2
 * event format), POST /v2/rerank and GET /v1/models, each checking `Authorization: Bearer <key>`
 * (401 {message} otherwise, as Cohere answers).
 */
export interface MockCohere {
  url: string;
  requests: MockRequestRecord[];
  setScript(script: MockScript): void;
  close(): Promise<void>;
}

export const MOCK_COHERE_MODELS = [
  { name: 'command-a-03-2025', endpoints: ['chat'] },
  { name: 'command-r7b-12-2024', endpoints: ['chat'] },
  { name: 'embed-v4.0', endpoints: ['embed'] },
  { name: 'rerank-v3.5', endpoints: ['rerank'] },
];

const DEFAULT_TURN: MockTurn = { text: 'Hello from Cohere.', usage: { input: 10, output: 5 } };

const sendJson = (response: ServerResponse, status: number, body: unknown) => {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
};

const sendFailure = (response: ServerResponse, failure: MockFailure) => sendJson(response, failure.status, { id: randomUUID(), message: failure.message });

const words = (text: string): Set<string> => new Set(text.toLowerCase().split(/\W+/).filter(Boolean));

/** Scores each document by the query words it shares, as a stand-in for the model. */
function rerank(body: Record<string, unknown>): Record<string, unknown> {
  const query = words(typeof body.query === 'string' ? body.query : '');
  const documents = Array.isArray(body.documents) ? body.documents : [];
  const texts = documents.map((document) => (typeof document === 'string' ? document : JSON.stringify(document)));
  const scored = texts.map((text, index) => {
    const shared = [...words(text)].filter((word) => query.has(word)).length;
    return { index, relevance_score: query.size === 0 ? 0 : shared / query.size, text };
  });
  scored.sort((a, b) => b.relevance_score - a.relevance_score || a.index - b.index);
  const topN = typeof body.top_n === 'number' ? body.top_n : scored.length;
  return {
    id: randomUUID(),
    results: scored
      .slice(0, topN)
      .map(({ index, relevance_score, text }) =>
        body.return_documents === true ? { index, relevance_score, document: { text } } : { index, relevance_score },
      ),
    meta: { api_version: { version: '2' }, billed_units: { search_units: 1 } },
  };
}

export async function startMockCohere(options: { key: string; script?: MockScript }): Promise<MockCohere> {
  let script: MockScript = options.script ?? (() => DEFAULT_TURN);
  const requests: MockRequestRecord[] = [];

  const handle = async (request: ReceivedRequest, response: ServerResponse) => {
    const url = new URL(request.url, 'http://mock');
    let body: unknown;
    try {
      body = request.body === '' ? undefined : JSON.parse(request.body);
    } catch {
      body = undefined;
    }
    requests.push({ method: request.method, path: request.url, headers: request.headers, body, rawBody: request.body });
    if (request.headers.authorization !== `Bearer ${options.key}`) {
      sendFailure(response, { status: 401, message: 'invalid api token' });
      return;
    }
    const json = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;
    if (request.method === 'GET' && url.pathname === '/v1/models') {
      const endpoint = url.searchParams.get('endpoint');
      sendJson(response, 200, { models: MOCK_COHERE_MODELS.filter((model) => !endpoint || model.endpoints.includes(endpoint)), next_page_token: '' });
      return;
    }
    if (request.method !== 'POST' || (url.pathname !== '/v2/chat' && url.pathname !== '/v2/rerank')) {
      sendJson(response, 404, { message: `no route for ${request.method} ${url.pathname}` });
      return;
    }
    if (!json || typeof json.model !== 'string') {
      sendFailure(response, { status: 400, message: 'invalid request: model is required' });
      return;
    }
    const answer = script(json, url.pathname);
    if (isMockFailure(answer)) {
      sendFailure(response, answer);
      return;
    }
    if (url.pathname === '/v2/rerank') {
      sendJson(response, 200, rerank(json));
      return;
    }
    if (!Array.isArray(json.messages)) {
      sendFailure(response, { status: 400, message: 'invalid request: messages must be an array' });
      return;
    }
    if (json.stream !== true) {
      sendJson(response, 200, cohereChatResponse(answer));
      return;
    }
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    for (const event of cohereChatStream(answer)) response.write(event);
    response.end();
  };

  const server = await new LocalServer(handle).start();
  return {
    url: server.url,
    requests,
    setScript: (next) => {
      script = next;
    },
    close: () => server.close(),
  };
}
