import { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { describe, expect, it } from 'vitest';
import { arrivedBody, upstreamDrained, upstreamEnded } from './upstream-body.js';

const asBody = (readable: Readable) => readable as unknown as Dispatcher.ResponseData['body'];

describe('what has arrived of an upstream body', () => {
  it('reads a body whose end has arrived at once, whole, however many pieces it came in', () => {
    const readable = new Readable({ read() {} });
    for (const piece of ['{"id":', '"x",', '"usage":{}}']) readable.push(Buffer.from(piece));
    readable.push(null);
    const body = asBody(readable);
    expect(upstreamEnded(body)).toBe(true);
    expect(upstreamDrained(body)).toBe(false);
    expect(arrivedBody(body)?.toString()).toBe('{"id":"x","usage":{}}');
    expect(upstreamDrained(body)).toBe(true);
  });

  it('leaves a body still arriving to be read through its events', async () => {
    const readable = new Readable({ read() {} });
    readable.push(Buffer.from('{"id":'));
    const body = asBody(readable);
    expect(upstreamEnded(body)).toBe(false);
    expect(arrivedBody(body)).toBeUndefined();
    readable.push(Buffer.from('"x"}'));
    readable.push(null);
    const parts: Buffer[] = [];
    for await (const part of readable) parts.push(part as Buffer);
    expect(Buffer.concat(parts).toString()).toBe('{"id":"x"}');
  });

  it('gives an empty buffer for an empty body that has ended, and nothing for a destroyed one', () => {
    const empty = new Readable({ read() {} });
    empty.push(null);
    expect(arrivedBody(asBody(empty))?.length).toBe(0);
    const destroyed = new Readable({ read() {} });
    destroyed.push(Buffer.from('x'));
    destroyed.push(null);
    destroyed.destroy();
    expect(arrivedBody(asBody(destroyed))).toBeUndefined();
  });
});
