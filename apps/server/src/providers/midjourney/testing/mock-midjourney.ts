import type { ServerResponse } from 'node:http';
import { request } from 'undici';
import { LocalServer, type ReceivedRequest } from '../../../lib/testing/local-server.js';

/**
 * A midjourney-proxy over real HTTP for tests (its API as novicezk/midjourney-proxy docs/api.md
 * describes it): submits answer `{code: 1, description: "提交成功", result: <id>}`, tasks move
 * SUBMITTED → IN_PROGRESS (progress %) → SUCCESS (image, buttons) or FAILURE (reason) each time
 * the test calls `advance()` (or every `autoAdvanceMs` when set, for browser tests), and a
 * task's notifyHook is called at each change. Every call must carry `mj-api-secret: <secret>`.
 */
export interface MockTaskPlan {
  /** Steps from submitted to the end: 1 = done at the first advance. */
  steps: number;
  outcome: 'success' | 'failure';
  failReason: string;
}

export interface MockMjTask {
  id: string;
  action: string;
  prompt: string;
  description: string;
  status: 'NOT_START' | 'SUBMITTED' | 'IN_PROGRESS' | 'SUCCESS' | 'FAILURE';
  progress: string;
  submitTime: number;
  startTime: number;
  finishTime: number;
  imageUrl: string;
  failReason: string;
  buttons: Array<{ customId: string; emoji: string; label: string; type: number; style: number }>;
  properties: Record<string, unknown>;
  step: number;
  plan: MockTaskPlan;
  notifyHook: string;
  /** The body the gateway sent for it. */
  body: Record<string, unknown>;
  path: string;
}

/** One submit's answer the test scripts instead of accepting (`{code: 24, description: "可能包含敏感词"}`). */
export interface ScriptedAnswer {
  status?: number;
  body: Record<string, unknown>;
}

export interface MockMidjourneyOptions {
  secret?: string;
  /** Advance every task this often (ms); off by default (tests advance by hand). */
  autoAdvanceMs?: number;
  plan?: Partial<MockTaskPlan>;
}

/** A 1×1 PNG, the mock's drawing. */
export const MOCK_PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

const SUBMIT_PATH = /^(?:\/[\w-]+)?\/mj\/(submit\/[\w-]+|insight-face\/swap)$/;

export class MockMidjourney {
  readonly tasks = new Map<string, MockMjTask>();
  readonly secret: string;
  /** Answers the next submits take, first in first out. */
  readonly scripted: ScriptedAnswer[] = [];
  /** Callbacks that failed (the hook refused or could not be reached). */
  readonly hookErrors: string[] = [];
  plan: MockTaskPlan;
  private readonly server: LocalServer;
  // Ids like the proxy's (16 digits), apart per mock so that two proxies never hand out the same one.
  private sequence = 1_300_000_000_000_000 + Math.floor(Math.random() * 1e9) * 1000;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: MockMidjourneyOptions = {}) {
    this.secret = options.secret ?? 'mj-secret';
    this.plan = { steps: 3, outcome: 'success', failReason: '', ...options.plan };
    this.server = new LocalServer((received, response) => this.handle(received, response));
  }

  get url(): string {
    return this.server.url;
  }

  get received(): ReceivedRequest[] {
    return this.server.received;
  }

  async start(): Promise<this> {
    await this.server.start();
    if (this.options.autoAdvanceMs) this.timer = setInterval(() => void this.advance(), this.options.autoAdvanceMs);
    return this;
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.server.close();
  }

  /** Moves every unfinished task (or the one named) one step on and calls the hooks. */
  async advance(id?: string): Promise<void> {
    const moving = [...this.tasks.values()].filter((task) => (id === undefined || task.id === id) && !isDone(task));
    for (const task of moving) {
      task.step += 1;
      const now = Date.now();
      if (task.startTime === 0) task.startTime = now;
      if (task.step >= task.plan.steps) {
        task.progress = '100%';
        task.finishTime = now;
        if (task.plan.outcome === 'success') {
          task.status = 'SUCCESS';
          task.imageUrl = `${this.url}/attachments/${task.id}.png`;
          task.buttons = buttonsFor(task.id);
          task.properties = { ...task.properties, finalPrompt: task.prompt };
        } else {
          task.status = 'FAILURE';
          task.failReason = task.plan.failReason || 'Banned prompt detected';
        }
      } else {
        task.status = 'IN_PROGRESS';
        task.progress = `${Math.round((task.step / task.plan.steps) * 100)}%`;
      }
      await this.callHook(task);
    }
  }

  /** Ends a task in failure at once (the next poll or callback sees it). */
  async fail(id: string, reason = 'Banned prompt detected'): Promise<void> {
    const task = this.tasks.get(id);
    if (!task) throw new Error(`no mock task ${id}`);
    task.plan = { ...task.plan, steps: task.step + 1, outcome: 'failure', failReason: reason };
    await this.advance(id);
  }

  /** Runs every task to its end. */
  async finishAll(): Promise<void> {
    while ([...this.tasks.values()].some((task) => !isDone(task))) await this.advance();
  }

  dto(task: MockMjTask) {
    return {
      id: task.id,
      action: task.action,
      prompt: task.prompt,
      promptEn: task.prompt,
      description: task.description,
      state: '',
      submitTime: task.submitTime,
      startTime: task.startTime,
      finishTime: task.finishTime,
      imageUrl: task.imageUrl,
      status: task.status,
      progress: task.progress,
      failReason: task.failReason,
      buttons: task.buttons,
      properties: task.properties,
    };
  }

  private async callHook(task: MockMjTask): Promise<void> {
    if (!task.notifyHook) return;
    try {
      const answer = await request(task.notifyHook, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(this.dto(task)),
        signal: AbortSignal.timeout(5_000),
      });
      await answer.body.dump();
      if (answer.statusCode >= 300) this.hookErrors.push(`${task.id}: HTTP ${answer.statusCode}`);
    } catch (error) {
      this.hookErrors.push(`${task.id}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  private handle(received: ReceivedRequest, response: ServerResponse): void {
    const path = received.url.split('?')[0] ?? '';
    const image = /^\/attachments\/(\w+)\.png$/.exec(path);
    if (image && received.method === 'GET') {
      response.writeHead(200, { 'content-type': 'image/png', 'content-length': MOCK_PNG.length }).end(MOCK_PNG);
      return;
    }
    if (received.headers['mj-api-secret'] !== this.secret) {
      json(response, 401, { code: 401, description: '令牌无效' });
      return;
    }
    let body: Record<string, unknown> = {};
    if (received.method === 'POST') {
      try {
        body = JSON.parse(received.body || '{}') as Record<string, unknown>;
      } catch {
        json(response, 400, { code: 4, description: 'invalid json' });
        return;
      }
    }
    const submit = SUBMIT_PATH.exec(path);
    if (submit && received.method === 'POST') {
      this.submit(submit[1]!, path, body, response);
      return;
    }
    const fetch = /^(?:\/[\w-]+)?\/mj\/task\/(\w+)\/(fetch|image-seed)$/.exec(path);
    if (fetch && received.method === 'GET') {
      const task = this.tasks.get(fetch[1]!);
      if (!task) json(response, 404, { code: 3, description: '任务不存在' });
      else if (fetch[2] === 'fetch') json(response, 200, this.dto(task));
      else json(response, 200, { code: 1, description: '成功', result: `seed-${task.id}` });
      return;
    }
    if (/^(?:\/[\w-]+)?\/mj\/task\/list-by-condition$/.test(path) && received.method === 'POST') {
      const ids = Array.isArray(body.ids) ? (body.ids as unknown[]).map(String) : [];
      json(
        response,
        200,
        ids.flatMap((id) => (this.tasks.has(id) ? [this.dto(this.tasks.get(id)!)] : [])),
      );
      return;
    }
    json(response, 404, { code: 4, description: `no route ${received.method} ${path}` });
  }

  private submit(kind: string, path: string, body: Record<string, unknown>, response: ServerResponse): void {
    const scripted = this.scripted.shift();
    if (scripted) {
      json(response, scripted.status ?? 200, scripted.body);
      return;
    }
    if (kind === 'submit/upload-discord-images') {
      json(response, 200, { code: 1, description: '成功', result: [`${this.url}/attachments/upload.png`] });
      return;
    }
    const id = String((this.sequence += 1));
    const action = actionOf(kind, body);
    const task: MockMjTask = {
      id,
      action,
      prompt: typeof body.prompt === 'string' ? body.prompt : '',
      description: `/${action.toLowerCase()}`,
      status: 'SUBMITTED',
      progress: '0%',
      submitTime: Date.now(),
      startTime: 0,
      finishTime: 0,
      imageUrl: '',
      failReason: '',
      buttons: [],
      properties: { discordInstanceId: '1118138338562560102' },
      step: 0,
      plan: { ...this.plan },
      notifyHook: typeof body.notifyHook === 'string' ? body.notifyHook : '',
      body,
      path,
    };
    this.tasks.set(id, task);
    json(response, 200, { code: 1, description: '提交成功', result: id, properties: { discordInstanceId: '1118138338562560102' } });
  }
}

const isDone = (task: MockMjTask) => task.status === 'SUCCESS' || task.status === 'FAILURE';

function actionOf(kind: string, body: Record<string, unknown>): string {
  switch (kind) {
    case 'submit/imagine':
      return 'IMAGINE';
    case 'submit/describe':
      return 'DESCRIBE';
    case 'submit/blend':
      return 'BLEND';
    case 'submit/shorten':
      return 'SHORTEN';
    case 'submit/modal':
      return 'MODAL';
    case 'insight-face/swap':
      return 'SWAP_FACE';
    case 'submit/change':
      return typeof body.action === 'string' ? body.action : 'UPSCALE';
    case 'submit/simple-change':
      return String(body.content ?? '')
        .split(' ')[1]
        ?.toLowerCase()
        .startsWith('u')
        ? 'UPSCALE'
        : 'VARIATION';
    case 'submit/action':
      return String(body.customId ?? '').includes('upsample') ? 'UPSCALE' : 'VARIATION';
    default:
      return 'IMAGINE';
  }
}

/** The four upscale and variation buttons midjourney-proxy returns after an imagine. */
function buttonsFor(id: string) {
  const buttons = [];
  for (const index of [1, 2, 3, 4]) buttons.push({ customId: `MJ::JOB::upsample::${index}::${id}`, emoji: '', label: `U${index}`, type: 2, style: 2 });
  for (const index of [1, 2, 3, 4]) buttons.push({ customId: `MJ::JOB::variation::${index}::${id}`, emoji: '', label: `V${index}`, type: 2, style: 2 });
  buttons.push({ customId: `MJ::JOB::reroll::0::${id}::SOLO`, emoji: '🔄', label: '', type: 2, style: 2 });
  return buttons;
}

function json(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
}
