import { ChannelType } from '@modelgate/contract';
import { EventEmitter } from 'node:events';
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { describe, expect, it } from 'vitest';
import { adaptorFor } from '../providers/registry.js';
import { RequestAbort } from './request-abort.js';
import { endStream, relayStream, type StreamResult } from './stream-relay.js';
import { StreamWatchdog } from './stream-watchdog.js';
import { chatChunk, chatStream } from './testing/mock-upstream.js';

/** A client socket that never drains until told to: every write says "full". */
class StalledResponse extends EventEmitter {
  written = 0;
  writeHead() {
    return this;
  }
  write(): boolean {
    this.written += 1;
    return false;
  }
  cork() {}
  uncork() {}
}

/** An upstream body that has `total` events ready and counts how many were read from it. */
function upstreamBody(total: number) {
  let sent = 0;
  const body = new Readable({
    // One event per read, each read a turn of the event loop apart (as socket reads are).
    highWaterMark: 1,
    read() {
      setImmediate(() => {
        if (sent === total) {
          this.push(null);
          return;
        }
        sent += 1;
        this.push(chatChunk({ content: `part ${sent}` }));
      });
    },
  });
  return { body, sent: () => sent };
}

async function readsWhileStalled(queueLength: number) {
  const total = 200;
  const response = new StalledResponse();
  const { body, sent } = upstreamBody(total);
  const relayed = relayStream({
    response: response as unknown as ServerResponse,
    commit: () => {},
    upstream: { statusCode: 200, headers: {}, body } as unknown as Dispatcher.ResponseData,
    adaptor: adaptorFor(ChannelType.OpenAI)!,
    endpoint: 'chat',
    forwardUsage: true,
    watchdog: new StreamWatchdog(60_000),
    abort: new RequestAbort(),
    startedAt: performance.now(),
    queueLength,
  });
  // The client stays stalled for a while: whatever was read by then waits in memory.
  await new Promise((resolve) => setTimeout(resolve, 150));
  const whileStalled = sent();
  // Then it drains as fast as it can, and the whole stream goes through.
  const drain = setInterval(() => response.emit('drain'), 1);
  const result = await relayed;
  clearInterval(drain);
  return { whileStalled, result, total, sent: sent() };
}

describe('relayStream backpressure (StreamCacheQueueLength)', () => {
  it('with 0 holds the upstream back at the first full write; with N lets N more reads queue first; delivers everything either way', async () => {
    const held = await readsWhileStalled(0);
    const queued = await readsWhileStalled(10);
    // A readable keeps at most its high-water mark read ahead, so "held" is one or two events.
    expect(held.whileStalled).toBeLessThanOrEqual(3);
    expect(queued.whileStalled).toBeGreaterThanOrEqual(held.whileStalled + 10);
    expect(queued.whileStalled).toBeLessThanOrEqual(held.whileStalled + 13);
    for (const run of [held, queued]) {
      expect(run.result.end).toBe('complete');
      expect(run.sent).toBe(run.total);
    }
  });
});

/** What the client saw of one relayed stream, and how many writes its socket took. */
interface OneRead {
  result: StreamResult;
  /** Socket writes (each a send system call) before the relay ended the response, and in all. */
  writesBeforeEnd: number;
  writes: number;
  /** What the client had received when the relay returned, before the bill and the end. */
  receivedBeforeEnd: string;
  received: string;
  contentType: string | undefined;
}

/**
 * Relays `sse`, delivered as one socket read delivers it (every byte and the end at once), through a
 * real HTTP server to a real client; the relay's result is held 50 ms before the response is ended,
 * as a bill being settled would hold it.
 */
async function relayOneRead(sse: string, forwardUsage: boolean): Promise<OneRead> {
  let writes = 0;
  let writesBeforeEnd = -1;
  let received = '';
  let receivedBeforeEnd = '';
  let result: StreamResult | undefined;
  const server = createServer((_request, response) => {
    const socket = response.socket as unknown as { _writeGeneric: (...args: unknown[]) => unknown };
    const send = socket._writeGeneric;
    socket._writeGeneric = function (this: unknown, ...args: unknown[]) {
      writes += 1;
      return send.apply(this, args);
    };
    const body = new Readable({ read() {} });
    body.push(Buffer.from(sse));
    body.push(null);
    void relayStream({
      response,
      commit: () => {},
      upstream: { statusCode: 200, headers: {}, body } as unknown as Dispatcher.ResponseData,
      adaptor: adaptorFor(ChannelType.OpenAI)!,
      endpoint: 'chat',
      forwardUsage,
      watchdog: new StreamWatchdog(60_000),
      abort: new RequestAbort(),
      startedAt: performance.now(),
    }).then(async (relayed) => {
      result = relayed;
      await new Promise((resolve) => setTimeout(resolve, 50));
      writesBeforeEnd = writes;
      receivedBeforeEnd = received;
      endStream(response, relayed.last);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const answer = await new Promise<IncomingMessage>((resolve, reject) => {
      const request = httpRequest({ port: (server.address() as AddressInfo).port, method: 'POST', host: '127.0.0.1' }, resolve);
      request.on('error', reject);
      request.end('{}');
    });
    answer.setEncoding('utf8');
    for await (const part of answer) received += part as string;
    return { result: result!, writesBeforeEnd, writes, receivedBeforeEnd, received, contentType: answer.headers['content-type'] };
  } finally {
    server.close();
  }
}

describe("relayStream: the upstream's last bytes", () => {
  const words = ['Hello', ' there', '!'];

  it("leave with the response's end when usage is known: headers, events and the closing chunk in one write", async () => {
    const sse = chatStream(words, true);
    const run = await relayOneRead(sse, true);
    expect(run.result.end).toBe('complete');
    expect(run.result.observation.usage).toMatchObject({ promptTokens: 11, completionTokens: 7 });
    // Nothing went out while the bill was settled; then everything in one send.
    expect(run.writesBeforeEnd).toBe(0);
    expect(run.receivedBeforeEnd).toBe('');
    expect(run.writes).toBe(1);
    expect(run.received).toBe(sse);
    expect(run.contentType).toBe('text/event-stream');
  });

  it('still drop the usage-only event the client did not ask for', async () => {
    const run = await relayOneRead(chatStream(words, true), false);
    expect(run.writes).toBe(1);
    expect(run.received).toBe(chatStream(words, true).replace(/data: \{[^\n]*"choices":\[\][^\n]*\n\n/, ''));
    expect(run.received).not.toContain('"choices":[]');
    expect(run.received.endsWith('data: [DONE]\n\n')).toBe(true);
  });

  it('are written at once when the stream carried no usage: the client does not wait for its text to be counted', async () => {
    const sse = chatStream(words, false);
    const run = await relayOneRead(sse, true);
    expect(run.result.observation.usage).toBeUndefined();
    expect(run.receivedBeforeEnd).toBe(sse);
    expect(run.received).toBe(sse);
  });
});
