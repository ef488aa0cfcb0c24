import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { LocalServer, type ReceivedRequest } from '../../../lib/testing/local-server.js';

/**
 * A mock Suno-API server over real HTTP (the upstream of a Suno channel, type 36), for the
 * whole-app and browser tests. It speaks what new-api relays to (see suno-wire.ts and
 * __fixtures__/suno-fetch-answer.json): POST /suno/submit/{music,lyrics} → {code:'success',
 * message:'', data:<task id>}, POST /suno/fetch {ids} → {code:'success', data:[task]}. Every call
 * must carry `Authorization: Bearer <key>`.
 *
 * Each task lives on a clock the test controls (`advance(seconds)`; or the wall clock with
 * `realTime`): SUBMITTED at 0 s, QUEUED from 1 s, IN_PROGRESS from 2 s with `progress` rising, then
 * at 2 + `durationSeconds` SUCCESS with the song's clips (audio_url, image_url, title, lyrics in
 * metadata.prompt, tags, duration) or lyrics {id, status, title, text} — or FAILURE with the
 * planned reason. The clips' audio and image URLs point at this server (a short silent WAV and a
 * small PNG), so a browser can play and show them.
 */
export interface MockSunoOptions {
  /** The key the channel must send (default 'suno-test-key'). */
  key?: string;
  /** More keys it accepts (a multi-key channel's); each sees only the tasks submitted with it, as an account does. */
  moreKeys?: string[];
  /** Seconds a task spends in progress before it ends (default 3). */
  durationSeconds?: number;
  /** Follow the wall clock instead of advance() (for a browser test run against a real server). */
  realTime?: boolean;
}

export type MockSunoOutcome = { kind: 'success' } | { kind: 'failure'; reason: string };

export interface MockSunoTask {
  taskId: string;
  action: 'MUSIC' | 'LYRICS';
  /** The submit body as the mock received it. */
  request: Record<string, unknown>;
  submittedAt: number;
  outcome: MockSunoOutcome;
  /** The key it was submitted with. */
  key: string;
}

/** A PNG of 1×1 pixel (a cover image the browser can load). */
const COVER_PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

/** Half a second of silence as 8 kHz mono 8-bit WAV (a track the browser can play). */
function silentWav(): Buffer {
  const samples = 4000;
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + samples, 4);
  header.write('WAVEfmt ', 8);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(8000, 24);
  header.writeUInt32LE(8000, 28);
  header.writeUInt16LE(1, 32);
  header.writeUInt16LE(8, 34);
  header.write('data', 36);
  header.writeUInt32LE(samples, 40);
  return Buffer.concat([header, Buffer.alloc(samples, 128)]);
}
const SILENT_WAV = silentWav();

const LYRICS_TEXT = '[Verse]\nCoffee on the kitchen floor\nSunlight through the open door\n\n[Chorus]\nSlow morning, stay a while';

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  response.end(text);
}

export class MockSuno {
  readonly key: string;
  private readonly keys: Set<string>;
  readonly tasks = new Map<string, MockSunoTask>();
  private readonly server: LocalServer;
  private readonly durationSeconds: number;
  private readonly realTime: boolean;
  /** Seconds added to the wall clock by advance(). */
  private offsetSeconds = 0;
  private readonly planned: MockSunoOutcome[] = [];
  private refusal: { status: number; body: unknown } | undefined;

  constructor(options: MockSunoOptions = {}) {
    this.key = options.key ?? 'suno-test-key';
    this.keys = new Set([this.key, ...(options.moreKeys ?? [])]);
    this.durationSeconds = options.durationSeconds ?? 3;
    this.realTime = options.realTime ?? false;
    this.server = new LocalServer((request, response) => this.handle(request, response));
  }

  /** The base URL to put in the channel's "Suno path" (base_url). */
  get url(): string {
    return this.server.url;
  }

  /** Every request received, in order (method, url, headers, body). */
  get received(): readonly ReceivedRequest[] {
    return this.server.received;
  }

  async start(): Promise<this> {
    await this.server.start();
    return this;
  }

  close(): Promise<void> {
    return this.server.close();
  }

  /** Moves the clock on (tasks advance through their life cycle). */
  advance(seconds: number): void {
    this.offsetSeconds += seconds;
  }

  /** Jumps past every task's end. */
  finishAll(): void {
    this.advance(3 + this.durationSeconds);
  }

  /** How the next submitted tasks end, in order (then: success). */
  plan(...outcomes: MockSunoOutcome[]): void {
    this.planned.push(...outcomes);
  }

  /** Answers every submit with this status and body until called with undefined. */
  refuseSubmits(refusal: { status: number; body: unknown } | undefined): void {
    this.refusal = refusal;
  }

  /** The clock in Unix seconds (fractional). */
  now(): number {
    return (this.realTime ? Date.now() / 1000 : this.frozenAt) + this.offsetSeconds;
  }

  private readonly frozenAt = Math.floor(Date.now() / 1000);

  /** The task as POST /suno/fetch reports it now. */
  view(task: MockSunoTask): Record<string, unknown> {
    const age = this.now() - task.submittedAt;
    const submit = Math.floor(task.submittedAt);
    const base = { task_id: task.taskId, action: task.action, submit_time: submit, fail_reason: '' };
    if (age < 1) return { ...base, status: 'SUBMITTED', progress: '0%', start_time: 0, finish_time: 0, data: null };
    if (age < 2) return { ...base, status: 'QUEUED', progress: '0%', start_time: 0, finish_time: 0, data: null };
    const start = submit + 2;
    const done = age >= 2 + this.durationSeconds;
    if (!done) {
      const progress = Math.min(99, Math.floor(((age - 2) / this.durationSeconds) * 100));
      return { ...base, status: 'IN_PROGRESS', progress: `${progress}%`, start_time: start, finish_time: 0, data: this.result(task, 'streaming') };
    }
    const finish = start + this.durationSeconds;
    if (task.outcome.kind === 'failure') {
      return {
        ...base,
        status: 'FAILURE',
        progress: '100%',
        fail_reason: task.outcome.reason,
        start_time: start,
        finish_time: finish,
        data: this.result(task, 'error'),
      };
    }
    return { ...base, status: 'SUCCESS', progress: '100%', start_time: start, finish_time: finish, data: this.result(task, 'complete') };
  }

  private result(task: MockSunoTask, clipStatus: 'streaming' | 'complete' | 'error'): unknown {
    const prompt = typeof task.request.prompt === 'string' ? task.request.prompt : '';
    if (task.action === 'LYRICS') {
      return { id: task.taskId, status: clipStatus, title: clipStatus === 'error' ? '' : 'Quiet Morning', text: clipStatus === 'complete' ? LYRICS_TEXT : '' };
    }
    const title = typeof task.request.title === 'string' && task.request.title !== '' ? task.request.title : 'Kitchen Floor';
    const tags = typeof task.request.tags === 'string' ? task.request.tags : 'lofi, chill';
    return [0, 1].map((index) => {
      const id = `${task.taskId}-clip-${index}`;
      return {
        id,
        video_url: '',
        audio_url: clipStatus === 'error' ? '' : `${this.url}/files/${id}.wav`,
        image_url: `${this.url}/files/${id}.png`,
        image_large_url: `${this.url}/files/${id}.png`,
        major_model_version: 'v3',
        model_name: 'chirp-v3',
        status: clipStatus,
        title,
        text: '',
        metadata: {
          tags,
          prompt: prompt !== '' ? prompt : LYRICS_TEXT,
          gpt_description_prompt: task.request.gpt_description_prompt ?? null,
          audio_prompt_id: null,
          duration: clipStatus === 'complete' ? 124.5 : null,
          error_type: clipStatus === 'error' ? 'generation_failed' : null,
          error_message: clipStatus === 'error' && task.outcome.kind === 'failure' ? task.outcome.reason : null,
        },
      };
    });
  }

  private handle(request: ReceivedRequest, response: ServerResponse): void {
    const path = request.url.split('?')[0] ?? '';
    if (request.method === 'GET' && path.startsWith('/files/')) {
      const audio = path.endsWith('.wav');
      const bytes = audio ? SILENT_WAV : COVER_PNG;
      response.writeHead(200, { 'content-type': audio ? 'audio/wav' : 'image/png', 'content-length': bytes.length, 'access-control-allow-origin': '*' });
      response.end(bytes);
      return;
    }
    const key = String(request.headers.authorization ?? '').replace(/^Bearer /, '');
    if (!this.keys.has(key)) {
      sendJson(response, 401, { code: 'unauthorized', message: 'invalid secret token', data: null });
      return;
    }
    let body: Record<string, unknown>;
    try {
      body = request.body === '' ? {} : (JSON.parse(request.body) as Record<string, unknown>);
    } catch {
      sendJson(response, 400, { code: 'invalid_request', message: 'invalid json', data: null });
      return;
    }
    const submit = /^\/suno\/submit\/(music|lyrics)$/.exec(path);
    if (request.method === 'POST' && submit) {
      this.submit(submit[1] === 'music' ? 'MUSIC' : 'LYRICS', body, response, key);
      return;
    }
    if (request.method === 'POST' && path === '/suno/fetch') {
      const ids = Array.isArray(body.ids) ? body.ids.filter((id): id is string => typeof id === 'string') : [];
      // An account sees only its own tasks.
      const found = ids.map((id) => this.tasks.get(id)).filter((task): task is MockSunoTask => task !== undefined && task.key === key);
      sendJson(response, 200, { code: 'success', message: '', data: found.map((task) => this.view(task)) });
      return;
    }
    sendJson(response, 404, { code: 'not_found', message: `no route ${request.method} ${path}`, data: null });
  }

  private submit(action: 'MUSIC' | 'LYRICS', body: Record<string, unknown>, response: ServerResponse, key: string): void {
    if (this.refusal) {
      sendJson(response, this.refusal.status, this.refusal.body);
      return;
    }
    if (action === 'LYRICS' && (typeof body.prompt !== 'string' || body.prompt === '')) {
      sendJson(response, 400, { code: 'invalid_request', message: 'prompt is empty', data: null });
      return;
    }
    const task: MockSunoTask = {
      taskId: randomUUID(),
      action,
      request: body,
      submittedAt: this.now(),
      outcome: this.planned.shift() ?? { kind: 'success' },
      key,
    };
    this.tasks.set(task.taskId, task);
    sendJson(response, 200, { code: 'success', message: '', data: task.taskId });
  }
}

/** Starts a mock Suno server (for Playwright's global setup or a test's beforeAll). */
export const startMockSuno = (options: MockSunoOptions = {}): Promise<MockSuno> => new MockSuno(options).start();
