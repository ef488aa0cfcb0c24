import { crc32 } from 'node:zlib';
import type { FrameDecoder } from '../provider-types.js';

/**
 * AWS's binary event-stream framing (application/vnd.amazon.eventstream), as InvokeModelWithResponseStream
 * sends it. Each message: total length (u32), headers length (u32), CRC32 of those 8 bytes, the
 * headers, the payload, CRC32 of everything before it. Multi-byte integers are big-endian.
 */

const PRELUDE_LENGTH = 12;
const MIN_MESSAGE_LENGTH = 16;
/** AWS caps a message at 16 MiB; a larger length means the stream is not what we think it is. */
const MAX_MESSAGE_LENGTH = 16 * 1024 * 1024;

export type EventStreamHeaderValue = boolean | number | bigint | string | Buffer;

export interface EventStreamMessage {
  headers: Record<string, EventStreamHeaderValue>;
  payload: Buffer;
}

export class EventStreamError extends Error {
  constructor(message: string) {
    super(`AWS event stream: ${message}`);
    this.name = 'EventStreamError';
  }
}

function readHeaders(bytes: Buffer): Record<string, EventStreamHeaderValue> {
  const headers: Record<string, EventStreamHeaderValue> = {};
  let offset = 0;
  const need = (count: number): void => {
    if (offset + count > bytes.length) throw new EventStreamError('a header runs past the headers section');
  };
  while (offset < bytes.length) {
    need(1);
    const nameLength = bytes.readUInt8(offset);
    offset += 1;
    need(nameLength + 1);
    const name = bytes.toString('utf8', offset, offset + nameLength);
    offset += nameLength;
    const valueType = bytes.readUInt8(offset);
    offset += 1;
    switch (valueType) {
      case 0:
      case 1:
        headers[name] = valueType === 0;
        break;
      case 2:
        need(1);
        headers[name] = bytes.readInt8(offset);
        offset += 1;
        break;
      case 3:
        need(2);
        headers[name] = bytes.readInt16BE(offset);
        offset += 2;
        break;
      case 4:
        need(4);
        headers[name] = bytes.readInt32BE(offset);
        offset += 4;
        break;
      case 5:
      case 8:
        need(8);
        headers[name] = bytes.readBigInt64BE(offset);
        offset += 8;
        break;
      case 6:
      case 7: {
        need(2);
        const length = bytes.readUInt16BE(offset);
        offset += 2;
        need(length);
        const value = bytes.subarray(offset, offset + length);
        headers[name] = valueType === 7 ? value.toString('utf8') : Buffer.from(value);
        offset += length;
        break;
      }
      case 9:
        need(16);
        headers[name] = bytes.toString('hex', offset, offset + 16);
        offset += 16;
        break;
      default:
        throw new EventStreamError(`unknown header value type ${valueType}`);
    }
  }
  return headers;
}

/** Splits bytes into whole messages, keeping a partial one for the next chunk. Throws on a bad CRC. */
export class EventStreamSplitter {
  private pending: Buffer = Buffer.alloc(0);

  push(chunk: Buffer): EventStreamMessage[] {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    const messages: EventStreamMessage[] = [];
    while (this.pending.length >= PRELUDE_LENGTH) {
      const totalLength = this.pending.readUInt32BE(0);
      const headersLength = this.pending.readUInt32BE(4);
      if (crc32(this.pending.subarray(0, 8)) !== this.pending.readUInt32BE(8)) throw new EventStreamError('prelude CRC mismatch');
      if (totalLength < MIN_MESSAGE_LENGTH || totalLength > MAX_MESSAGE_LENGTH || headersLength > totalLength - MIN_MESSAGE_LENGTH) {
        throw new EventStreamError(`impossible message length ${totalLength} (headers ${headersLength})`);
      }
      if (this.pending.length < totalLength) break;
      const message = this.pending.subarray(0, totalLength);
      this.pending = this.pending.subarray(totalLength);
      if (crc32(message.subarray(0, totalLength - 4)) !== message.readUInt32BE(totalLength - 4)) throw new EventStreamError('message CRC mismatch');
      messages.push({
        headers: readHeaders(message.subarray(PRELUDE_LENGTH, PRELUDE_LENGTH + headersLength)),
        payload: Buffer.from(message.subarray(PRELUDE_LENGTH + headersLength, totalLength - 4)),
      });
    }
    return messages;
  }

  /** Bytes of an unfinished message still held (a stream that ends with some was cut). */
  get pendingBytes(): number {
    return this.pending.length;
  }
}

const text = (value: EventStreamHeaderValue | undefined): string => (typeof value === 'string' ? value : '');

function payloadMessage(payload: Buffer): string {
  try {
    const parsed: unknown = JSON.parse(payload.toString('utf8'));
    if (typeof parsed === 'object' && parsed !== null) {
      const record = parsed as Record<string, unknown>;
      const message = record.message ?? record.Message;
      if (typeof message === 'string') return message;
    }
  } catch {
    // not JSON: the payload itself is the message
  }
  return payload.toString('utf8').slice(0, 500);
}

const errorEvent = (type: string, message: string): { data: string; event: string } => ({
  data: JSON.stringify({ type: 'error', error: { type, message } }),
  event: 'error',
});

/** One Bedrock stream message as the Anthropic stream event it carries (or an Anthropic error event). */
export function bedrockMessageToEvent(message: EventStreamMessage): { data: string; event?: string } | undefined {
  const messageType = text(message.headers[':message-type']);
  if (messageType === 'exception') return errorEvent(text(message.headers[':exception-type']) || 'exception', payloadMessage(message.payload));
  if (messageType === 'error') {
    return errorEvent(text(message.headers[':error-code']) || 'error', text(message.headers[':error-message']) || payloadMessage(message.payload));
  }
  if (messageType !== 'event' || text(message.headers[':event-type']) !== 'chunk') return undefined;
  let bytes: unknown;
  try {
    bytes = (JSON.parse(message.payload.toString('utf8')) as { bytes?: unknown }).bytes;
  } catch {
    throw new EventStreamError('a chunk payload is not JSON');
  }
  if (typeof bytes !== 'string') throw new EventStreamError('a chunk payload has no "bytes"');
  const data = Buffer.from(bytes, 'base64').toString('utf8');
  let event: string | undefined;
  try {
    const type = (JSON.parse(data) as { type?: unknown }).type;
    if (typeof type === 'string') event = type;
  } catch {
    // forwarded as is; the Anthropic stream decoder reports what it cannot read
  }
  return event === undefined ? { data } : { data, event };
}

/** The FrameDecoder the relay uses for Bedrock streams. */
export class BedrockFrameDecoder implements FrameDecoder {
  private readonly splitter = new EventStreamSplitter();

  push(chunk: Buffer): { data: string; event?: string | undefined }[] {
    const events: { data: string; event?: string | undefined }[] = [];
    for (const message of this.splitter.push(chunk)) {
      const event = bedrockMessageToEvent(message);
      if (event) events.push(event);
    }
    return events;
  }

  /** A stream that ends inside a message was cut short: that is an error, not a quiet end. */
  finish(): { data: string; event?: string | undefined }[] {
    if (this.splitter.pendingBytes > 0) throw new EventStreamError(`the stream ended inside a message (${this.splitter.pendingBytes} bytes left)`);
    return [];
  }
}
