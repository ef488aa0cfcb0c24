import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_COMPLETION_RATIO, DEFAULT_MODEL_RATIO } from '../config/default-prices.js';
import { mockRedactedData, mockThinkingSignature, startMockAnthropic, type MockAnthropic } from '../providers/anthropic/testing/mock-anthropic.js';
import { startMockBedrock, type MockBedrock } from '../providers/aws-bedrock/testing/mock-bedrock.js';
import { startMockGemini, type MockGemini } from '../providers/gemini/testing/mock-gemini.js';
import type { MockRequestRecord, MockTurn } from '../providers/testing/mock-turn.js';
import { startMockVertex, type MockVertex } from '../providers/vertex/testing/mock-vertex.js';
import { seedChannel, seedToken, seedUser, setOption, startRelayTestEnv, unique, type RelayTestEnv } from './testing/relay-fixtures.js';

/**
 * A Claude Code conversation on Claude channels, through the whole app: thinking blocks with
 * their signatures and redacted_thinking go back to Claude as they came, across a tool loop, on
 * Anthropic (the client's bytes), Vertex and Bedrock (re-encoded bodies); the mocks refuse a
 * thinking block they did not sign, as Claude does, and a tool loop whose last assistant turn
 * does not open with its thinking. Where the canonical shape cannot carry them (a Gemini channel,
 * an OpenAI chat client) the rule is: dropped, said in the log, and thinking turned off inside a
 * tool loop Claude would otherwise refuse. cache_control reaches every Claude upstream, from an
 * Anthropic client and from an OpenAI chat client's content parts.
 */

const CLAUDE_KEY = 'sk-ant-agent-key-0123456789';
const GEMINI_KEY = 'AIza-agent-key-0123456789';
const AWS = { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', region: 'us-east-1' };
const CLAUDE_UPSTREAM = 'claude-sonnet-4-5-20250929';

const claudeModel = unique('agent-claude');
const vertexModel = unique('agent-vertex');
const bedrockModel = unique('agent-bedrock');
const geminiModel = unique('agent-gemini');

const THINKING = { type: 'enabled' as const, budget_tokens: 2048 };
const WEATHER_TOOL: Anthropic.Tool = {
  name: 'get_weather',
  description: 'Current weather in a city',
  input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

/** Claude in a tool loop: thinks (with a redacted part) and calls the tool, then answers from its result. */
const agentTurn = (body: unknown): MockTurn => {
  const messages = (body as { messages: { content: unknown }[] }).messages;
  if (JSON.stringify(messages.at(-1)?.content ?? '').includes('tool_result')) {
    return { thinking: 'The tool says 18 °C.', text: 'It is 18 °C in Lyon.', usage: { input: 80, output: 20 } };
  }
  return {
    thinking: 'The user wants the weather; I will call the tool.',
    redactedThinking: 'a flagged thought',
    toolCalls: [{ id: 'toolu_weather_1', name: 'get_weather', arguments: { city: 'Lyon' } }],
    usage: { input: 60, output: 30 },
  };
};

type ClaudeTarget = 'anthropic' | 'vertex' | 'bedrock';

describe('Claude agent conversations through the relay', () => {
  let env: RelayTestEnv;
  let claude: MockAnthropic;
  let vertex: MockVertex;
  let bedrock: MockBedrock;
  let gemini: MockGemini;
  let apiKey: string;

  beforeAll(async () => {
    env = await startRelayTestEnv();
    claude = await startMockAnthropic({ key: CLAUDE_KEY, script: agentTurn, checkThinking: true });
    vertex = await startMockVertex({ projectId: 'agent-project', script: agentTurn, checkThinking: true });
    bedrock = await startMockBedrock({ ...AWS, script: agentTurn, checkThinking: true });
    gemini = await startMockGemini({ key: GEMINI_KEY });
    const group = unique('agent');
    await setOption(env.context, 'GroupRatio', JSON.stringify({ default: 1, [group]: 1 }));
    const models = [claudeModel, vertexModel, bedrockModel, geminiModel];
    await setOption(env.context, 'ModelRatio', JSON.stringify({ ...DEFAULT_MODEL_RATIO, ...Object.fromEntries(models.map((model) => [model, 1])) }));
    await setOption(env.context, 'CompletionRatio', JSON.stringify({ ...DEFAULT_COMPLETION_RATIO, ...Object.fromEntries(models.map((model) => [model, 5])) }));
    const user = await seedUser(env.context, { quota: 50_000_000, group });
    apiKey = (await seedToken(env.context, user.id)).apiKey;
    await seedChannel(env.context, { type: 14, key: CLAUDE_KEY, baseUrl: claude.url, models: [claudeModel], groups: [group] });
    await seedChannel(env.context, {
      type: 41,
      key: vertex.serviceAccountKey,
      baseUrl: vertex.url,
      other: 'us-east5',
      models: [vertexModel],
      modelMapping: { [vertexModel]: CLAUDE_UPSTREAM },
      groups: [group],
    });
    await seedChannel(env.context, {
      type: 33,
      key: `${AWS.accessKeyId}|${AWS.secretAccessKey}|${AWS.region}`,
      baseUrl: bedrock.url,
      models: [bedrockModel],
      modelMapping: { [bedrockModel]: CLAUDE_UPSTREAM },
      groups: [group],
    });
    await seedChannel(env.context, { type: 24, key: GEMINI_KEY, baseUrl: gemini.url, models: [geminiModel], groups: [group] });
  });
  afterEach(() => {
    claude.setScript(agentTurn);
    gemini.setScript(() => ({ text: 'Hello from Gemini.', usage: { input: 12, output: 6 } }));
  });
  afterAll(async () => {
    await claude?.close();
    await vertex?.close();
    await bedrock?.close();
    await gemini?.close();
    await env?.close();
  });

  const anthropicClient = () => new Anthropic({ apiKey, baseURL: env.gateway, maxRetries: 0 });
  const openaiClient = () => new OpenAI({ apiKey, baseURL: `${env.gateway}/v1`, maxRetries: 0 });
  const modelOf: Record<ClaudeTarget, string> = { anthropic: claudeModel, vertex: vertexModel, bedrock: bedrockModel };
  const requestsOf = (target: ClaudeTarget): MockRequestRecord[] =>
    (target === 'anthropic' ? claude : target === 'vertex' ? vertex : bedrock).requests.filter((request) => request.path !== '/token');
  const lastBody = (target: ClaudeTarget) => requestsOf(target).at(-1)!.body as { messages: { role: string; content: unknown }[] } & Record<string, unknown>;

  /** One call of the conversation, whole or streamed, as Claude Code makes it. */
  async function turn(target: ClaudeTarget, stream: boolean, messages: Anthropic.MessageParam[]): Promise<Anthropic.Message> {
    const params = { model: modelOf[target], max_tokens: 8192, thinking: THINKING, tools: [WEATHER_TOOL], messages };
    return stream ? anthropicClient().messages.stream(params).finalMessage() : anthropicClient().messages.create(params);
  }

  describe('thinking and signatures kept across turns', () => {
    it('sends an Anthropic channel the client’s own bytes, thinking, signatures and redacted_thinking included', async () => {
      const question: Anthropic.MessageParam = { role: 'user', content: 'Weather in Lyon?' };
      const first = await turn('anthropic', false, [question]);
      expect(first.content.map((block) => block.type)).toEqual(['thinking', 'redacted_thinking', 'tool_use']);
      expect(first.content[0]).toEqual({
        type: 'thinking',
        thinking: 'The user wants the weather; I will call the tool.',
        signature: mockThinkingSignature('The user wants the weather; I will call the tool.'),
      });
      expect(first.content[1]).toEqual({ type: 'redacted_thinking', data: mockRedactedData('a flagged thought') });
      // The second call, byte for byte as Claude Code would send it.
      const second = JSON.stringify({
        model: claudeModel,
        max_tokens: 8192,
        thinking: THINKING,
        tools: [WEATHER_TOOL],
        messages: [
          question,
          { role: 'assistant', content: first.content },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_weather_1', content: '18 °C' }] },
        ],
      });
      const response = await fetch(`${env.gateway}/v1/messages`, {
        method: 'POST',
        headers: { 'x-api-key': apiKey, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
        body: second,
      });
      expect(response.status).toBe(200);
      expect(((await response.json()) as Anthropic.Message).content.at(-1)).toEqual({ type: 'text', text: 'It is 18 °C in Lyon.' });
      expect(requestsOf('anthropic').at(-1)!.rawBody).toBe(second);
    });

    for (const target of ['anthropic', 'vertex', 'bedrock'] as const) {
      for (const stream of [false, true]) {
        it(`runs a three-turn tool loop with thinking on ${target}, ${stream ? 'streamed' : 'whole'}`, async () => {
          const history: Anthropic.MessageParam[] = [{ role: 'user', content: 'Weather in Lyon?' }];
          const first = await turn(target, stream, history);
          expect(first.stop_reason).toBe('tool_use');
          expect(first.content.map((block) => block.type)).toEqual(['thinking', 'redacted_thinking', 'tool_use']);
          const call = first.content.find((block) => block.type === 'tool_use')!;
          history.push({ role: 'assistant', content: first.content });
          history.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: call.type === 'tool_use' ? call.id : '', content: '18 °C' }] });
          // The upstream checks every signature: a block changed on the way would be refused.
          const second = await turn(target, stream, history);
          expect(second.content.map((block) => block.type)).toEqual(['thinking', 'text']);
          expect(lastBody(target).messages[1]).toEqual({ role: 'assistant', content: first.content });
          history.push({ role: 'assistant', content: second.content });
          history.push({ role: 'user', content: 'And tomorrow?' });
          const third = await turn(target, stream, history);
          expect(third.stop_reason).toBe('tool_use');
          expect(lastBody(target).messages.slice(1, 4)).toEqual(history.slice(1, 4));
          expect(lastBody(target).thinking).toEqual(THINKING);
        });
      }
    }

    it('drops Claude’s thinking for a Gemini channel, which cannot take it back, and keeps the tool loop', async () => {
      gemini.setScript(() => ({ text: 'It is 18 °C in Lyon.', usage: { input: 40, output: 9 } }));
      const signature = mockThinkingSignature('I will call the tool.');
      const answer = await anthropicClient().messages.create({
        model: geminiModel,
        max_tokens: 1024,
        tools: [WEATHER_TOOL],
        messages: [
          { role: 'user', content: 'Weather in Lyon?' },
          {
            role: 'assistant',
            content: [
              { type: 'thinking', thinking: 'I will call the tool.', signature },
              { type: 'redacted_thinking', data: mockRedactedData('hidden') },
              { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Lyon' } },
            ],
          },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '18 °C' }] },
        ],
      });
      expect(answer.content).toEqual([{ type: 'text', text: 'It is 18 °C in Lyon.' }]);
      const sent = gemini.requests.at(-1)!.body as { contents: { role: string; parts: Record<string, unknown>[] }[] };
      expect(sent.contents.map((content) => content.role)).toEqual(['user', 'model', 'user']);
      // The model turn keeps its call (with Google's stand-in signature), not Claude's thinking.
      expect(sent.contents[1]!.parts).toEqual([
        { functionCall: { name: 'get_weather', args: { city: 'Lyon' } }, thoughtSignature: 'skip_thought_signature_validator' },
      ]);
      expect(sent.contents[2]!.parts[0]).toMatchObject({ functionResponse: { name: 'get_weather' } });
      const text = JSON.stringify(sent);
      expect(text).not.toContain('I will call the tool.');
      expect(text).not.toContain(signature);
    });

    it('an OpenAI chat client’s reasoning_content is not sent to Claude: thinking goes off inside the tool loop, on again after it', async () => {
      const client = openaiClient();
      const tools = [{ type: 'function' as const, function: { name: WEATHER_TOOL.name, parameters: WEATHER_TOOL.input_schema } }];
      const first = await client.chat.completions.create({
        model: claudeModel,
        reasoning_effort: 'low',
        tools,
        messages: [{ role: 'user', content: 'Weather in Lyon?' }],
      });
      const message = first.choices[0]!.message as OpenAI.ChatCompletionMessage & { reasoning_content?: string };
      expect(message.reasoning_content).toBe('The user wants the weather; I will call the tool.');
      expect(lastBody('anthropic').thinking).toEqual({ type: 'enabled', budget_tokens: 1024 });
      const history: OpenAI.ChatCompletionMessageParam[] = [
        { role: 'user', content: 'Weather in Lyon?' },
        message as OpenAI.ChatCompletionAssistantMessageParam,
        { role: 'tool', tool_call_id: message.tool_calls![0]!.id, content: '18 °C' },
      ];
      // Without a signature Claude would refuse the thinking back, and with thinking on it would refuse the loop without it.
      const second = await client.chat.completions.create({ model: claudeModel, reasoning_effort: 'low', tools, messages: history });
      expect(second.choices[0]!.message.content).toBe('It is 18 °C in Lyon.');
      const sent = lastBody('anthropic');
      expect(sent.thinking).toBeUndefined();
      expect(sent.messages[1]).toEqual({
        role: 'assistant',
        content: [{ type: 'tool_use', id: message.tool_calls![0]!.id, name: 'get_weather', input: { city: 'Lyon' } }],
      });
      // After the loop, a new question thinks again; the earlier turns go without their thinking, as Claude allows.
      claude.setScript(() => ({ thinking: 'Tomorrow: unknown.', text: 'I cannot say.', usage: { input: 90, output: 12 } }));
      history.push(second.choices[0]!.message as OpenAI.ChatCompletionAssistantMessageParam, { role: 'user', content: 'And tomorrow?' });
      const third = await client.chat.completions.create({ model: claudeModel, reasoning_effort: 'low', tools, messages: history });
      expect(third.choices[0]!.message.content).toBe('I cannot say.');
      expect(lastBody('anthropic').thinking).toEqual({ type: 'enabled', budget_tokens: 1024 });
      expect(JSON.stringify(lastBody('anthropic').messages)).not.toContain('"thinking"');
    });
  });

  describe('cache_control reaches Claude', () => {
    const marker = { type: 'ephemeral' as const };
    const hour = { type: 'ephemeral' as const, ttl: '1h' as const };

    for (const target of ['anthropic', 'vertex', 'bedrock'] as const) {
      it(`from an Anthropic client, on system, messages and tools, to ${target}`, async () => {
        claude.setScript(() => ({ text: 'Cached.', usage: { input: 10, output: 2, cacheWrite: 3000 } }));
        const tools = [{ ...WEATHER_TOOL, cache_control: hour }];
        const system: Anthropic.TextBlockParam[] = [{ type: 'text', text: 'A long, stable system prompt.', cache_control: hour }];
        const messages: Anthropic.MessageParam[] = [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'A long document.', cache_control: marker },
              { type: 'text', text: 'Summarise it.' },
            ],
          },
        ];
        await anthropicClient().messages.create({ model: modelOf[target], max_tokens: 256, system, tools, messages });
        const sent = lastBody(target);
        expect(sent.system).toEqual(system);
        expect(sent.tools).toEqual(tools);
        expect(sent.messages).toEqual(messages);
      });
    }

    for (const target of ['anthropic', 'bedrock'] as const) {
      it(`from an OpenAI chat client’s content parts and tools, to ${target}`, async () => {
        const parts = [
          { type: 'text', text: 'A long document.', cache_control: marker },
          { type: 'text', text: 'Summarise it.' },
        ] as unknown as OpenAI.ChatCompletionContentPartText[];
        const systemParts = [{ type: 'text', text: 'A long, stable system prompt.', cache_control: hour }] as unknown as OpenAI.ChatCompletionContentPartText[];
        const tools = [
          { type: 'function', function: { name: WEATHER_TOOL.name, parameters: WEATHER_TOOL.input_schema }, cache_control: marker },
        ] as unknown as OpenAI.ChatCompletionTool[];
        await openaiClient().chat.completions.create({
          model: modelOf[target],
          tools,
          messages: [
            { role: 'system', content: systemParts },
            { role: 'user', content: parts },
          ],
        });
        const sent = lastBody(target);
        expect(sent.system).toEqual([{ type: 'text', text: 'A long, stable system prompt.', cache_control: hour }]);
        expect(sent.messages).toEqual([
          {
            role: 'user',
            content: [
              { type: 'text', text: 'A long document.', cache_control: marker },
              { type: 'text', text: 'Summarise it.' },
            ],
          },
        ]);
        expect(sent.tools).toEqual([{ name: WEATHER_TOOL.name, input_schema: WEATHER_TOOL.input_schema, cache_control: marker }]);
      });
    }
  });
});
