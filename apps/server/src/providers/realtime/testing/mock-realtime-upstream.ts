import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';

/**
 * A local upstream that speaks OpenAI's Realtime event protocol over a WebSocket, as its
 * documentation describes it (beta and GA event names): `session.created` on connect,
 * `session.update` → `session.updated`, `conversation.item.create` → `conversation.item.created`,
 * `input_audio_buffer.append`/`commit` → `input_audio_buffer.committed`, `response.create` →
 * `response.created`, text and audio deltas, then `response.done` with its usage;
 * `response.cancel` ends a response under way with the usage counted so far. The key is checked at
 * the handshake (`Authorization: Bearer`, or Azure's `api-key`): a wrong one is refused with 401 and
 * OpenAI's error body, as OpenAI refuses it.
 */

/** What one response reports in its response.done. */
export interface MockUsage {
  inputText: number;
  inputAudio: number;
  cached?: number;
  outputText: number;
  outputAudio: number;
}

/** How the mock answers the next response. */
export interface MockResponse {
  usage: MockUsage;
  text?: string;
  /** Stop after response.created and the first delta until `finish` is called or the response is cancelled. */
  hold?: boolean;
  /** The usage a cancelled response reports (default: none, as if nothing was generated). */
  cancelledUsage?: MockUsage;
}

export interface MockFrame {
  data: Buffer;
  isBinary: boolean;
}

/** One client connection: its handshake and every frame it sent, as bytes. */
export interface MockConnection {
  url: string;
  headers: IncomingHttpHeaders;
  socket: WebSocket;
  received: MockFrame[];
  /** Resolves with the close code the gateway sent (or 1006). */
  closed: Promise<number>;
  /** Sends raw bytes to the gateway. */
  send(data: string | Buffer, binary?: boolean): void;
  /** Starts a response without a client event, as server VAD does when the user stops speaking. */
  serverTurn(): void;
  /** Finishes the first held response. */
  finish(): void;
}

const DEFAULT_USAGE: MockUsage = { inputText: 100, inputAudio: 0, outputText: 20, outputAudio: 0 };

export class MockRealtimeUpstream {
  readonly connections: MockConnection[] = [];
  /** Answers of the next responses, in order; DEFAULT_USAGE once empty. */
  readonly script: MockResponse[] = [];
  /** Keys accepted at the handshake. */
  readonly keys = new Set<string>();
  /** Status and body of every handshake when set (an upstream that refuses). */
  refuse: { status: number; body: string } | undefined;
  private server: Server | undefined;
  private readonly wss = new WebSocketServer({ noServer: true });
  private waiters: (() => void)[] = [];
  private sequence = 0;

  constructor(keys: string[] = ['sk-upstream']) {
    for (const key of keys) this.keys.add(key);
  }

  async start(): Promise<this> {
    const server = createServer((_request, response) => response.writeHead(404).end());
    server.on('upgrade', (request, socket, head) => {
      const bearer = /^Bearer\s+(.+)$/i.exec(request.headers.authorization ?? '')?.[1];
      const key = bearer ?? (typeof request.headers['api-key'] === 'string' ? request.headers['api-key'] : undefined);
      const refusal =
        this.refuse ??
        (key === undefined || !this.keys.has(key)
          ? {
              status: 401,
              body: JSON.stringify({
                error: { message: `Incorrect API key provided: ${key ?? ''}.`, type: 'invalid_request_error', param: null, code: 'invalid_api_key' },
              }),
            }
          : undefined);
      if (refusal) {
        socket.end(
          `HTTP/1.1 ${refusal.status} Refused\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(refusal.body)}\r\nconnection: close\r\n\r\n${refusal.body}`,
        );
        return;
      }
      this.wss.handleUpgrade(request, socket, head, (ws) => this.accept(ws, request.url ?? '', request.headers));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.server = server;
    return this;
  }

  /** `http://127.0.0.1:port`: a channel's base URL. */
  get baseUrl(): string {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }

  /** Resolves once `count` connections were accepted. */
  async connected(count: number): Promise<MockConnection> {
    while (this.connections.length < count) await new Promise<void>((resolve) => this.waiters.push(resolve));
    return this.connections[count - 1]!;
  }

  async close(): Promise<void> {
    for (const client of this.wss.clients) client.terminate();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }

  private id(prefix: string): string {
    this.sequence += 1;
    return `${prefix}_${this.sequence}`;
  }

  private accept(socket: WebSocket, url: string, headers: IncomingHttpHeaders): void {
    const model = new URL(url, 'http://upstream').searchParams.get('model') ?? new URL(url, 'http://upstream').searchParams.get('deployment') ?? '';
    const session: Record<string, unknown> = {
      id: this.id('sess'),
      object: 'realtime.session',
      model,
      modalities: ['text', 'audio'],
      instructions: 'You are a helpful assistant.',
      voice: 'alloy',
      input_audio_format: 'pcm16',
      output_audio_format: 'pcm16',
      turn_detection: { type: 'server_vad' },
      tools: [],
      max_response_output_tokens: 'inf',
    };
    const emit = (event: Record<string, unknown>) => {
      if (socket.readyState === socket.OPEN) socket.send(JSON.stringify({ event_id: this.id('event'), ...event }));
    };
    /** Responses under way, in the order they started. */
    const open = new Map<string, { answer: MockResponse; finish: () => void }>();
    let closeCode!: (code: number) => void;
    const connection: MockConnection = {
      url,
      headers,
      socket,
      received: [],
      closed: new Promise<number>((resolve) => {
        closeCode = resolve;
      }),
      send: (data, binary = false) => socket.send(data, { binary }),
      serverTurn: () => {
        emit({ type: 'input_audio_buffer.speech_stopped', audio_end_ms: 1000, item_id: this.id('item') });
        emit({ type: 'input_audio_buffer.committed', previous_item_id: null, item_id: this.id('item') });
        respond();
      },
      finish: () => [...open.values()][0]?.finish(),
    };
    const usageJson = (usage: MockUsage) => ({
      total_tokens: usage.inputText + usage.inputAudio + usage.outputText + usage.outputAudio,
      input_tokens: usage.inputText + usage.inputAudio,
      output_tokens: usage.outputText + usage.outputAudio,
      input_token_details: {
        cached_tokens: usage.cached ?? 0,
        text_tokens: usage.inputText,
        audio_tokens: usage.inputAudio,
        cached_tokens_details: { text_tokens: usage.cached ?? 0, audio_tokens: 0 },
      },
      output_token_details: { text_tokens: usage.outputText, audio_tokens: usage.outputAudio },
    });
    const done = (id: string, status: string, usage: MockUsage | undefined, text: string) => {
      open.delete(id);
      emit({
        type: 'response.done',
        response: {
          object: 'realtime.response',
          id,
          status,
          status_details: status === 'cancelled' ? { type: 'cancelled', reason: 'client_cancelled' } : null,
          output: [{ id: this.id('item'), object: 'realtime.item', type: 'message', status, role: 'assistant', content: [{ type: 'text', text }] }],
          usage: usage ? usageJson(usage) : null,
        },
      });
    };
    const respond = () => {
      const answer = this.script.shift() ?? { usage: DEFAULT_USAGE };
      const id = this.id('resp');
      const text = answer.text ?? 'Hello there.';
      emit({ type: 'response.created', response: { object: 'realtime.response', id, status: 'in_progress', status_details: null, output: [], usage: null } });
      const itemId = this.id('item');
      emit({ type: 'response.output_item.added', response_id: id, output_index: 0, item: { id: itemId, type: 'message', role: 'assistant', content: [] } });
      const [first, ...rest] = text.split(/(?<= )/);
      emit({ type: 'response.output_text.delta', response_id: id, item_id: itemId, output_index: 0, content_index: 0, delta: first ?? '' });
      const finish = () => {
        for (const piece of rest)
          emit({ type: 'response.output_text.delta', response_id: id, item_id: itemId, output_index: 0, content_index: 0, delta: piece });
        if (answer.usage.outputAudio > 0) {
          emit({
            type: 'response.output_audio.delta',
            response_id: id,
            item_id: itemId,
            output_index: 0,
            content_index: 1,
            delta: Buffer.alloc(480).toString('base64'),
          });
        }
        emit({ type: 'response.output_text.done', response_id: id, item_id: itemId, output_index: 0, content_index: 0, text });
        done(id, 'completed', answer.usage, text);
      };
      open.set(id, { answer, finish });
      if (!answer.hold) finish();
    };
    socket.on('message', (data: Buffer, isBinary: boolean) => {
      connection.received.push({ data: Buffer.from(data), isBinary });
      if (isBinary) return;
      let event: Record<string, unknown>;
      try {
        event = JSON.parse(data.toString('utf8')) as Record<string, unknown>;
      } catch {
        emit({ type: 'error', error: { type: 'invalid_request_error', code: 'invalid_json', message: 'The event is not JSON.', param: null, event_id: null } });
        return;
      }
      switch (event.type) {
        case 'session.update':
          Object.assign(session, event.session as Record<string, unknown>);
          emit({ type: 'session.updated', session });
          return;
        case 'conversation.item.create':
          emit({ type: 'conversation.item.created', previous_item_id: null, item: { id: this.id('item'), ...(event.item as Record<string, unknown>) } });
          return;
        case 'input_audio_buffer.append':
          return;
        case 'input_audio_buffer.commit':
          emit({ type: 'input_audio_buffer.committed', previous_item_id: null, item_id: this.id('item') });
          return;
        case 'response.create':
          respond();
          return;
        case 'response.cancel':
          {
            // The response named, else the last one started (the default conversation's).
            const id = typeof event.response_id === 'string' ? event.response_id : [...open.keys()].at(-1);
            const cancelled = id === undefined ? undefined : open.get(id);
            if (id !== undefined && cancelled) done(id, 'cancelled', cancelled.answer.cancelledUsage, '');
          }
          return;
        default:
          // Events the mock does not act on are taken silently.
          return;
      }
    });
    socket.on('close', (code) => closeCode(code));
    this.connections.push(connection);
    for (const wake of this.waiters.splice(0)) wake();
    emit({ type: 'session.created', session });
  }
}
