import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { Client } from 'undici';
import { checkAnswer, type Target } from './clients.js';
import { conversionCosts } from './formats-readers.js';
import { formatChecks, formatsSummary, responsesConversionBars, type Check, type FormatRuns } from './formats-report.js';
import { Measurer, medianRun, type BenchSettings, type Measured, type RunKey } from './measure.js';
import { MOCK_CLAUDE_MODEL } from './mock-anthropic.js';
import type { Pinned } from './processes.js';
import { formatTable, type RunRow } from './report.js';
import { seedChannels, seedUserAndToken } from './seed.js';

/**
 * The formats section: what modelgate's relay costs when the client's chat format and the
 * channel's are the same (Anthropic to a Claude channel: the client's bytes pass through, as
 * OpenAI's do to an OpenAI channel) and when it converts (OpenAI to Claude and back, Anthropic to
 * an OpenAI channel). One mock, one reference proxy and one gateway, pinned as in the relay
 * section; every configuration runs across all eight targets in turn, each target keeping its median
 * run. The OpenAI-to-OpenAI pass-through is measured again here, in the same rounds, so each ratio
 * compares runs of the same process at the same time. See bench/README.md.
 */

export interface FormatsContext {
  settings: BenchSettings;
  workDir: string;
  machineLoadPercent(): Promise<number>;
  startNodeScript(name: string, script: string, cpu: string, env: Record<string, string>): Promise<{ process: Pinned; port: number }>;
  startGateway(sqlitePath: string, label: string): Promise<{ process: Pinned; port: number; startupMs: number }>;
  stopAll(): Promise<void>;
  log(message: string): void;
}

const ANTHROPIC_VERSION = '2023-06-01';
const OPENAI_PATH = '/v1/chat/completions';
const ANTHROPIC_PATH = '/v1/messages';

/** The relay section's request, in Anthropic's shape: the same system prompt, turn and limits. */
export const anthropicBody = (model: string, stream: boolean) =>
  JSON.stringify({
    model,
    system: 'You are a helpful assistant that answers briefly.',
    messages: [{ role: 'user', content: 'Write one sentence about a fox that relays messages between two forests.' }],
    max_tokens: 256,
    temperature: 0.7,
    ...(stream ? { stream: true } : {}),
  });

type Format = 'openai' | 'anthropic';

/** One line of the section's table: a target, the format its client speaks and the model it asks for. */
interface FormatTarget {
  key: FormatRunKey;
  measured: Measured;
  format: Format;
  model: string;
}

export type FormatRunKey =
  | 'directOpenai'
  | 'proxyOpenai'
  | 'openaiToOpenai'
  | 'directAnthropic'
  | 'proxyAnthropic'
  | 'anthropicToAnthropic'
  | 'openaiToAnthropic'
  | 'anthropicToOpenai';

const CONFIGS: { key: RunKey; stream: boolean; connections: number }[] = [
  { key: 'nonStream50', stream: false, connections: 50 },
  { key: 'stream50', stream: true, connections: 50 },
  { key: 'nonStream1', stream: false, connections: 1 },
  { key: 'stream1', stream: true, connections: 1 },
];

async function post(target: Target, body: string): Promise<{ status: number; body: Buffer }> {
  const client = new Client(target.origin, { headersTimeout: 15_000, bodyTimeout: 15_000 });
  try {
    const answer = await client.request({ method: 'POST', path: target.path, headers: target.headers, body });
    return { status: answer.statusCode, body: Buffer.from(await answer.body.arrayBuffer()) };
  } finally {
    await client.close();
  }
}

const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

/** An Anthropic answer checked as an Anthropic client reads it. */
async function anthropicProblem(target: Target, model: string): Promise<string | undefined> {
  for (const stream of [false, true]) {
    const answer = await post(target, anthropicBody(model, stream));
    const text = answer.body.toString('utf8');
    const what = `${target.name} (${stream ? 'stream' : 'non-stream'} ${model})`;
    if (answer.status !== 200) return `${what}: HTTP ${answer.status}: ${text.slice(0, 300)}`;
    if (stream) {
      const deltas = text.split('event: content_block_delta').length - 1;
      if (!text.includes('event: message_start') || !/event: message_stop\ndata: [^\n]*\n\n$/.test(text) || deltas === 0 || !text.includes('"output_tokens"')) {
        return `${what}: not an Anthropic event stream ending in message_stop with text deltas and usage: ${text.slice(-300)}`;
      }
      continue;
    }
    try {
      const parsed = JSON.parse(text) as { type?: string; content?: unknown[]; usage?: { input_tokens?: number } };
      if (parsed.type !== 'message' || !Array.isArray(parsed.content) || typeof parsed.usage?.input_tokens !== 'number')
        return `${what}: not a Message with usage: ${text.slice(0, 300)}`;
    } catch {
      return `${what}: not JSON: ${text.slice(0, 300)}`;
    }
  }
  return undefined;
}

async function openaiProblem(target: Target, model: string, chatBody: BenchSettings['chatBody']): Promise<string | undefined> {
  for (const stream of [false, true]) {
    const problem = await checkAnswer(target, chatBody(model, stream), stream);
    if (problem) return `${target.name} (${stream ? 'stream' : 'non-stream'} ${model}): ${problem}`;
  }
  return undefined;
}

interface LastRequest {
  path?: string;
  bytes?: number;
  sha256?: string;
  headers?: Record<string, string | undefined>;
}

/**
 * OpenAI's fast path on a stream, as the relay's README describes it: the client's JSON with
 * `"stream_options":{"include_usage":true},` put in front (so the call can be billed), and the
 * answer's usage-only event cut out when the client did not ask for usage. Every other byte as is.
 */
const openaiStreamChanges = {
  request: (sent: string) => `{"stream_options":{"include_usage":true},${sent.slice(sent.indexOf('{') + 1)}`,
  answer: (upstream: Buffer) =>
    Buffer.from(
      upstream
        .toString('utf8')
        .split('\n\n')
        .filter((event) => !(event.includes('"choices":[]') && /"usage":\{/.test(event)))
        .join('\n\n'),
    ),
  note: "expected: the client's bytes with stream_options.include_usage put in front, the answer without the usage-only event the client did not ask for",
};

/**
 * One request of each kind through modelgate, then what the mock received: the same bytes as the
 * client sent (SHA-256), and whether the answer the client got is the mock's own bytes (compared
 * with the same request sent straight to the mock). The OpenAI stream is held to its documented
 * changes (openaiStreamChanges) instead.
 */
async function passThroughChecks(mockOrigin: string, direct: Target, relayed: Target, body: (stream: boolean) => string, format: Format): Promise<Check[]> {
  const mock = new Client(mockOrigin);
  const checks: Check[] = [];
  try {
    for (const stream of [false, true]) {
      const sent = body(stream);
      const changes = format === 'openai' && stream ? openaiStreamChanges : undefined;
      const straight = await post(direct, sent);
      const through = await post(relayed, sent);
      const seen = JSON.parse(await (await mock.request({ method: 'GET', path: '/bench/last-request' })).body.text()) as LastRequest;
      const sameRequest = seen.sha256 === sha256(changes ? changes.request(sent) : sent);
      const expectedAnswer = changes ? changes.answer(straight.body) : straight.body;
      const sameAnswer = through.status === 200 && sha256(through.body) === sha256(expectedAnswer);
      const notes = [`upstream got ${seen.bytes} bytes at ${seen.path}, client sent ${Buffer.byteLength(sent)}`];
      if (format === 'anthropic') {
        const key = seen.headers?.['x-api-key'] ?? '';
        notes.push(
          `x-api-key ${key.startsWith('sk-mock-upstream-') ? "the channel's" : 'NOT the channel key'}`,
          `anthropic-version ${seen.headers?.['anthropic-version'] ?? 'missing'}`,
        );
      }
      if (!sameAnswer) notes.push(`answer ${through.body.length} bytes vs the ${expectedAnswer.length} expected`);
      if (changes) notes.push(changes.note);
      checks.push({ format, stream, sameRequest, sameAnswer, expectedChanges: changes !== undefined, note: notes.join('; ') });
    }
  } finally {
    await mock.close();
  }
  return checks;
}

export async function runFormatsBench(context: FormatsContext): Promise<{ lines: string[]; failed: number }> {
  const { settings, log, workDir } = context;
  const idleLoad = await context.machineLoadPercent();
  log(
    `formats: work files in ${workDir}; ${settings.durationSeconds} s runs after ${settings.warmupSeconds} s warm-up; machine ${idleLoad.toFixed(0)} % busy before start`,
  );
  if (idleLoad > 15) log('WARNING: other processes are using the CPUs; figures will be noisy (see the "core0 other" column)');

  const mock = await context.startNodeScript('formats-mock', 'bench/mock-upstream.ts', settings.loadCore, { MOCK_PORT: '0' });
  const mockOrigin = `http://127.0.0.1:${mock.port}`;
  const proxy = await context.startNodeScript('formats-proxy', 'bench/reference-proxy.ts', String(settings.relayCore), { PORT: '0', UPSTREAM: mockOrigin });
  const sqlitePath = join(workDir, 'modelgate-formats.db');
  const tokenKey = await seedUserAndToken(sqlitePath);
  // Both models are priced by the server's default table (gpt-4o-mini 0.075, claude-haiku-4-5 0.5 with completion ratio 5).
  await seedChannels(sqlitePath, { models: [settings.mainModel], count: 10, baseUrl: mockOrigin, namePrefix: 'openai' });
  await seedChannels(sqlitePath, { models: [MOCK_CLAUDE_MODEL], count: 10, baseUrl: mockOrigin, namePrefix: 'claude', type: 14 });
  const gateway = await context.startGateway(sqlitePath, 'formats');
  log(`modelgate started in ${gateway.startupMs.toFixed(0)} ms with 10 OpenAI and 10 Claude channels`);

  const openaiHeaders = { 'content-type': 'application/json', authorization: `Bearer sk-${tokenKey}` };
  const anthropicHeaders = { 'content-type': 'application/json', 'x-api-key': `sk-${tokenKey}`, 'anthropic-version': ANTHROPIC_VERSION };
  const proxyOrigin = `http://127.0.0.1:${proxy.port}`;
  const gatewayOrigin = `http://127.0.0.1:${gateway.port}`;
  const at = (name: string, origin: string, format: Format, process: Pinned): Measured => ({
    target: { name, origin, path: format === 'openai' ? OPENAI_PATH : ANTHROPIC_PATH, headers: format === 'openai' ? openaiHeaders : anthropicHeaders },
    process,
  });
  const claude = MOCK_CLAUDE_MODEL;
  const gpt = settings.mainModel;
  const targets: FormatTarget[] = [
    { key: 'directOpenai', measured: at('direct oai', mockOrigin, 'openai', mock.process), format: 'openai', model: gpt },
    { key: 'proxyOpenai', measured: at('proxy oai', proxyOrigin, 'openai', proxy.process), format: 'openai', model: gpt },
    { key: 'openaiToOpenai', measured: at('mg oai→oai', gatewayOrigin, 'openai', gateway.process), format: 'openai', model: gpt },
    { key: 'directAnthropic', measured: at('direct ant', mockOrigin, 'anthropic', mock.process), format: 'anthropic', model: claude },
    { key: 'proxyAnthropic', measured: at('proxy ant', proxyOrigin, 'anthropic', proxy.process), format: 'anthropic', model: claude },
    { key: 'anthropicToAnthropic', measured: at('mg ant→ant', gatewayOrigin, 'anthropic', gateway.process), format: 'anthropic', model: claude },
    { key: 'openaiToAnthropic', measured: at('mg oai→ant', gatewayOrigin, 'openai', gateway.process), format: 'openai', model: claude },
    { key: 'anthropicToOpenai', measured: at('mg ant→oai', gatewayOrigin, 'anthropic', gateway.process), format: 'anthropic', model: gpt },
  ];

  for (const { measured, format, model } of targets) {
    const problem = format === 'openai' ? await openaiProblem(measured.target, model, settings.chatBody) : await anthropicProblem(measured.target, model);
    if (problem) {
      await context.stopAll();
      throw new Error(`formats: ${problem}`);
    }
  }
  const byKey = (key: FormatRunKey) => targets.find((target) => target.key === key)!.measured.target;
  const checks = [
    ...(await passThroughChecks(mockOrigin, byKey('directOpenai'), byKey('openaiToOpenai'), (stream) => settings.chatBody(gpt, stream), 'openai')),
    ...(await passThroughChecks(mockOrigin, byKey('directAnthropic'), byKey('anthropicToAnthropic'), (stream) => anthropicBody(claude, stream), 'anthropic')),
  ];
  for (const line of formatChecks(checks)) log(line);

  const measurers: Record<Format, Measurer> = {
    openai: new Measurer(settings, mock.process),
    anthropic: new Measurer({ ...settings, chatBody: anthropicBody }, mock.process),
  };
  const runs = {} as Record<FormatRunKey, Partial<Record<RunKey, RunRow>>>;
  const rounds = {} as Record<FormatRunKey, Partial<Record<RunKey, RunRow[]>>>;
  for (const target of targets) {
    runs[target.key] = {};
    rounds[target.key] = {};
  }
  const table: RunRow[] = [];
  for (const config of CONFIGS) {
    for (let round = 0; round < settings.repeat; round += 1) {
      for (const { key, measured, format, model } of targets) {
        const row = await measurers[format].wrkRow(measured, model, config.stream, config.connections, { record: false, warmUp: round === 0 });
        (rounds[key][config.key] ??= []).push(row);
      }
    }
    for (const { key } of targets) {
      runs[key][config.key] = medianRun(rounds[key][config.key]!);
      table.push(runs[key][config.key]!);
    }
  }
  await context.stopAll();

  const header =
    `\nmodelgate formats benchmark: relays on core ${settings.relayCore}; mock, wrk and this script on core ${settings.loadCore}; ` +
    `${settings.durationSeconds} s per run, median of ${settings.repeat} interleaved rounds; machine ${idleLoad.toFixed(0)} % busy before start\n` +
    `oai = OpenAI chat (${OPENAI_PATH}, ${gpt}), ant = Anthropic messages (${ANTHROPIC_PATH}, ${claude}); mg a→b = a client speaking a, through modelgate, to a channel speaking b\n`;
  const conversions = conversionCosts({ gptModel: gpt, chatBody: settings.chatBody, anthropicBody });
  const responsesBars = responsesConversionBars(conversions.micros);
  const summary = formatsSummary(runs as Record<FormatRunKey, FormatRuns>, checks, responsesBars.failed);
  const out = [header, formatTable(table), '', ...formatChecks(checks), '', ...conversions.lines, '', ...responsesBars.lines, '', ...summary.lines];
  const errored = table.filter((row) => row.errors > 0);
  if (errored.length > 0) out.push(`WARNING: ${errored.length} runs had non-2xx answers or socket errors; their figures are not comparable.`);
  return { lines: out, failed: summary.failed + responsesBars.failed + errored.length };
}
