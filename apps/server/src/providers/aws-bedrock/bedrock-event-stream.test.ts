import { EventStreamCodec } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import { describe, expect, it } from 'vitest';
import { BedrockFrameDecoder, EventStreamSplitter } from './bedrock-event-stream.js';
import { bedrockChunkFrame, bedrockExceptionFrame } from './testing/mock-bedrock.js';

/** Events from Anthropic's streaming documentation (docs.anthropic.com/en/docs/build-with-claude/streaming). */
const EVENTS = [
  {
    type: 'message_start',
    message: {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      content: [],
      model: 'claude-3-5-sonnet-20241022',
      usage: { input_tokens: 25, output_tokens: 1 },
    },
  },
  { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hello ✓ 世界' } },
  { type: 'content_block_stop', index: 0 },
  { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 15 } },
  { type: 'message_stop' },
];

const frames = EVENTS.map(bedrockChunkFrame);
const all = Buffer.concat(frames);

describe('Bedrock event-stream decoding (frames from the AWS SDK’s own encoder)', () => {
  it('one chunk holding several frames gives every event, in order, as Anthropic event JSON', () => {
    const decoded = new BedrockFrameDecoder().push(all);
    expect(decoded.map((event) => JSON.parse(event.data))).toEqual(EVENTS);
    expect(decoded.map((event) => event.event)).toEqual(EVENTS.map((event) => event.type));
  });

  it('frames cut at every byte boundary decode the same', () => {
    for (const size of [1, 3, 7, 16, 61]) {
      const decoder = new BedrockFrameDecoder();
      const out: string[] = [];
      for (let start = 0; start < all.length; start += size) out.push(...decoder.push(all.subarray(start, start + size)).map((event) => event.data));
      expect(
        out.map((data) => JSON.parse(data)),
        `piece size ${size}`,
      ).toEqual(EVENTS);
    }
  });

  it('a frame split inside its prelude waits for the rest', () => {
    const decoder = new BedrockFrameDecoder();
    expect(decoder.push(frames[0]!.subarray(0, 5))).toEqual([]);
    expect(decoder.push(frames[0]!.subarray(5))).toHaveLength(1);
  });

  it('an exception message becomes an Anthropic error event with the exception type and message', () => {
    const decoded = new BedrockFrameDecoder().push(
      Buffer.concat([frames[0]!, bedrockExceptionFrame('throttlingException', 'Too many tokens, please wait before trying again.')]),
    );
    expect(decoded).toHaveLength(2);
    expect(JSON.parse(decoded[1]!.data)).toEqual({
      type: 'error',
      error: { type: 'throttlingException', message: 'Too many tokens, please wait before trying again.' },
    });
  });

  it('messages that are neither chunks nor exceptions are skipped; header value types all parse', () => {
    const codec = new EventStreamCodec(toUtf8, fromUtf8);
    const other = Buffer.from(
      codec.encode({
        headers: {
          ':message-type': { type: 'string', value: 'event' },
          ':event-type': { type: 'string', value: 'initial-response' },
          flag: { type: 'boolean', value: true },
          small: { type: 'byte', value: 7 },
          short: { type: 'short', value: 300 },
          int: { type: 'integer', value: 70000 },
          when: { type: 'timestamp', value: new Date(0) },
          raw: { type: 'binary', value: new Uint8Array([1, 2]) },
          id: { type: 'uuid', value: '123e4567-e89b-12d3-a456-426614174000' },
        },
        body: fromUtf8('{}'),
      }),
    );
    const splitter = new EventStreamSplitter();
    const [message] = splitter.push(other);
    expect(message?.headers).toMatchObject({ flag: true, small: 7, short: 300, int: 70000, id: '123e4567e89b12d3a456426614174000' });
    expect(new BedrockFrameDecoder().push(Buffer.concat([other, frames[5]!])).map((event) => event.event)).toEqual(['message_stop']);
  });

  it('a corrupted payload fails the message CRC; a corrupted length fails the prelude CRC', () => {
    const payloadBroken = Buffer.from(frames[2]!);
    payloadBroken.writeUInt8(payloadBroken.readUInt8(payloadBroken.length - 10) ^ 0xff, payloadBroken.length - 10);
    expect(() => new BedrockFrameDecoder().push(payloadBroken)).toThrow(/message CRC/);
    const preludeBroken = Buffer.from(frames[2]!);
    preludeBroken.writeUInt8(preludeBroken.readUInt8(3) ^ 0x01, 3);
    expect(() => new BedrockFrameDecoder().push(preludeBroken)).toThrow(/prelude CRC/);
  });

  it('a chunk whose payload lacks "bytes" is an error, not a silent gap', () => {
    const codec = new EventStreamCodec(toUtf8, fromUtf8);
    const frame = Buffer.from(
      codec.encode({
        headers: { ':message-type': { type: 'string', value: 'event' }, ':event-type': { type: 'string', value: 'chunk' } },
        body: fromUtf8('{"p":"abc"}'),
      }),
    );
    expect(() => new BedrockFrameDecoder().push(frame)).toThrow(/bytes/);
  });
});
