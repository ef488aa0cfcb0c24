import { ChannelType } from '@modelgate/contract';
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { describe, expect, it } from 'vitest';
import { adaptorFor } from '../providers/registry.js';
import { RequestAbort } from './request-abort.js';
import { relayStream } from './stream-relay.js';
import { StreamWatchdog } from './stream-watchdog.js';
import { chatChunk } from './testing/mock-upstream.js';

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
