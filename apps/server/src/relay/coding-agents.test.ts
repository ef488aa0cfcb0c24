import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type MockAnthropic, startMockAnthropic } from '../providers/anthropic/testing/mock-anthropic.js';
import { type MockGemini, startMockGemini } from '../providers/gemini/testing/mock-gemini.js';
import type { MockScript, MockToolCall } from '../providers/testing/mock-turn.js';
import { type AgentCliName, requireAgentClis, runAgentCli } from './testing/agent-cli.js';
import { answeringModel, conversationOf, fileReadingModel, offersTool, openAIChatModel, type WireFormat } from './testing/agent-model.js';
import { priceModel, seedChannel, seedToken, seedUser, startRelayTestEnv, totals, unique, type RelayTestEnv } from './testing/relay-fixtures.js';

/**
 * The real coding-agent CLIs (Claude Code, Gemini CLI, Codex; scripts/agent-clis.mjs installs them)
 * run non-interactively against the gateway with an sk- key, each on channels of other vendors:
 * Claude Code on OpenAI (1) and Gemini (24) channels, Gemini CLI on OpenAI and Claude (14) ones,
 * Codex on Claude and Gemini ones. The upstreams are mocks of each wire format that stream as the
 * vendors do and behave like a model: asked to read a file, the first answer calls the agent's own
 * file-reading tool (from the tools the agent sent), the next one repeats what the tool returned.
 * Each run must end with the agent's answer, the upstream must have seen the tool result, and every
 * upstream call must be logged and charged to the user and the token. Nothing leaves loopback.
 */

const START_QUOTA = 50_000_000;
const TOKEN_QUOTA = 20_000_000;
const CLAUDE_KEY = 'sk-ant-agents-mock';
const GEMINI_KEY = 'AIza-agents-mock';

interface Upstream {
  format: WireFormat;
  model: string;
  setScript(script: MockScript): void;
  /** The generation calls it received (not token counts or model lists), in order. */
  generations(): { body: unknown; streamed: boolean }[];
}

/** How each agent reads a file: its own tool, with its own argument schema. */
const readCalls: Record<AgentCliName, (path: string) => MockToolCall> = {
  claude: (path) => ({ name: 'Read', arguments: { file_path: path } }),
  gemini: (path) => ({ name: 'read_file', arguments: { file_path: path } }),
  // Codex reads files through its shell tool, as its own models do.
  codex: (path) => ({ name: 'exec_command', arguments: { cmd: `cat ${path}` } }),
};

describe('coding-agent CLIs through the relay', { timeout: 90_000 }, () => {
  let env: RelayTestEnv;
  let claude: MockAnthropic;
  let gemini: MockGemini;
  let upstreams: Record<WireFormat, Upstream>;
  let openaiScript: MockScript = answeringModel('unset');
  let group = '';
  /** Why the CLIs are missing, if they are: each test then fails with it (a failing beforeAll would only mark them skipped). */
  let missingClis: Error | undefined;
  const workdirs: string[] = [];

  beforeAll(async () => {
    missingClis = await requireAgentClis().then(
      () => undefined,
      (error: Error) => error,
    );
    env = await startRelayTestEnv();
    claude = await startMockAnthropic({ key: CLAUDE_KEY });
    gemini = await startMockGemini({ key: GEMINI_KEY });
    env.upstream.respond(openAIChatModel(() => openaiScript));
    group = unique('agents');
    const models = { openai: unique('agent-gpt'), anthropic: unique('agent-claude'), gemini: unique('agent-gemini') };
    for (const model of Object.values(models)) await priceModel(env.context, model, 1, 4);
    await seedChannel(env.context, { type: 1, key: unique('openai-key'), baseUrl: env.upstream.url, models: [models.openai], groups: [group] });
    await seedChannel(env.context, { type: 14, key: CLAUDE_KEY, baseUrl: claude.url, models: [models.anthropic], groups: [group] });
    await seedChannel(env.context, { type: 24, key: GEMINI_KEY, baseUrl: gemini.url, models: [models.gemini], groups: [group] });
    upstreams = {
      openai: {
        format: 'openai',
        model: models.openai,
        setScript: (script) => (openaiScript = script),
        generations: () =>
          env.upstream.requests
            .filter((request) => request.url.includes('/chat/completions'))
            .map((request) => ({ body: request.json, streamed: request.json?.stream === true })),
      },
      anthropic: {
        format: 'anthropic',
        model: models.anthropic,
        setScript: (script) => claude.setScript(script),
        generations: () =>
          claude.requests
            .filter((request) => request.path === '/v1/messages')
            .map((request) => ({ body: request.body, streamed: (request.body as { stream?: unknown }).stream === true })),
      },
      gemini: {
        format: 'gemini',
        model: models.gemini,
        setScript: (script) => gemini.setScript(script),
        generations: () =>
          gemini.requests
            .filter((request) => /:(stream)?generateContent$/i.test(request.path))
            .map((request) => ({ body: request.body, streamed: request.path.endsWith(':streamGenerateContent') && request.query.alt === 'sse' })),
      },
    };
  }, 600_000);

  afterAll(async () => {
    for (const dir of workdirs) rmSync(dir, { recursive: true, force: true });
    await claude?.close();
    await gemini?.close();
    await env?.close();
  });

  afterEach(() => {
    for (const upstream of Object.values(upstreams ?? {})) upstream.setScript(answeringModel('unset'));
  });

  /** A working folder with a file holding a fresh secret. */
  function workdirWithSecret() {
    const dir = mkdtempSync(join(tmpdir(), 'agent-work-'));
    workdirs.push(dir);
    const secret = `KIWI-${randomBytes(6).toString('hex').toUpperCase()}`;
    const file = join(dir, 'notes.txt');
    writeFileSync(file, `Meeting notes.\nThe launch code is ${secret}.\nNothing else.\n`);
    return { dir, file, secret };
  }

  /** Runs the agent as a fresh user's token and checks the books: every upstream call logged and charged. */
  async function runAsNewUser(cli: AgentCliName, upstream: Upstream, prompt: string, workdir: string, claudeKeyAs?: 'x-api-key' | 'bearer') {
    if (missingClis) throw missingClis;
    const user = await seedUser(env.context, { quota: START_QUOTA, group });
    const token = await seedToken(env.context, user.id, { remainQuota: TOKEN_QUOTA, unlimited: false });
    const before = upstream.generations().length;
    const run = await runAgentCli(cli, { gateway: env.gateway, apiKey: token.apiKey, model: upstream.model, prompt, workdir, claudeKeyAs });
    const calls = upstream.generations().slice(before);
    // The agents stream, and so does every upstream call made for them, in the upstream's own format.
    expect(calls.map((call) => call.streamed)).toEqual(calls.map(() => true));
    await env.runtime.drain();
    const books = await totals(env.context, { userId: user.id, tokenId: token.id });
    expect(books.logs.length).toBe(calls.length);
    for (const log of books.logs) {
      expect(log.model_name).toBe(upstream.model);
      expect(Number(log.quota)).toBeGreaterThan(0);
    }
    expect(START_QUOTA - books.userQuota).toBe(books.logQuotaSum);
    expect(books.userUsed).toBe(books.logQuotaSum);
    expect(TOKEN_QUOTA - books.tokenRemain).toBe(books.logQuotaSum);
    expect(books.tokenUsed).toBe(books.logQuotaSum);
    return { run, calls: calls.map((call) => call.body) };
  }

  async function oneShot(cli: AgentCliName, vendor: WireFormat, claudeKeyAs?: 'x-api-key' | 'bearer') {
    const upstream = upstreams[vendor];
    const word = `pong-${randomBytes(4).toString('hex')}`;
    upstream.setScript(answeringModel(`Hello from the mock model: ${word}.`));
    const { dir } = workdirWithSecret();
    const { run, calls } = await runAsNewUser(cli, upstream, 'Say hello in one short sentence. Do not use any tool.', dir, claudeKeyAs);
    expect(run.answer).toContain(word);
    expect(calls.length).toBeGreaterThanOrEqual(1);
  }

  async function readsAFile(cli: AgentCliName, vendor: WireFormat, claudeKeyAs?: 'x-api-key' | 'bearer') {
    const upstream = upstreams[vendor];
    const { dir, file, secret } = workdirWithSecret();
    const call = readCalls[cli](file);
    upstream.setScript(fileReadingModel(vendor, call, secret));
    const prompt = `Read the file ${file} and tell me the launch code written in it.`;
    const { run, calls } = await runAsNewUser(cli, upstream, prompt, dir, claudeKeyAs);
    expect(run.answer).toContain(secret);
    // The agent's tool reached the upstream with its parameters; the agent ran it and its result came back through the relay.
    expect(offersTool(conversationOf(vendor, calls[0]), call)).toBe(true);
    expect(calls.some((body) => conversationOf(vendor, body).toolResults.some((result) => result.includes(secret)))).toBe(true);
  }

  describe('Claude Code (/v1/messages)', () => {
    it('answers a prompt on an OpenAI channel', () => oneShot('claude', 'openai'));
    it('reads a file with its Read tool on an OpenAI channel (key as a bearer token)', () => readsAFile('claude', 'openai', 'bearer'));
    it('answers a prompt on a Gemini channel (key as a bearer token)', () => oneShot('claude', 'gemini', 'bearer'));
    it('reads a file with its Read tool on a Gemini channel', () => readsAFile('claude', 'gemini'));
  });

  describe('Gemini CLI (/v1beta/models/*:streamGenerateContent)', () => {
    it('answers a prompt on an OpenAI channel', () => oneShot('gemini', 'openai'));
    it('reads a file with read_file on an OpenAI channel', () => readsAFile('gemini', 'openai'));
    it('answers a prompt on a Claude channel', () => oneShot('gemini', 'anthropic'));
    it('reads a file with read_file on a Claude channel', () => readsAFile('gemini', 'anthropic'));
  });

  describe('Codex (/v1/responses)', () => {
    it('answers a prompt on a Claude channel', () => oneShot('codex', 'anthropic'));
    it('reads a file through exec_command on a Claude channel', () => readsAFile('codex', 'anthropic'));
    it('answers a prompt on a Gemini channel', () => oneShot('codex', 'gemini'));
    it('reads a file through exec_command on a Gemini channel', () => readsAFile('codex', 'gemini'));
  });
});
