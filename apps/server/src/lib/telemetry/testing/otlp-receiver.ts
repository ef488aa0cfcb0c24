import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

/**
 * A local OTLP/HTTP trace receiver for tests: it takes POSTs as a collector does, decodes each
 * body (protobuf, by a small reader of the protocol's wire format written from
 * opentelemetry-proto's trace.proto, or JSON) and keeps the spans in one plain shape.
 */
export type AttributeValue = string | number | boolean | AttributeValue[];

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** '' for a root span. */
  parentSpanId: string;
  name: string;
  /** OTLP SpanKind: 2 SERVER, 3 CLIENT. */
  kind: number;
  startNanos: bigint;
  endNanos: bigint;
  attributes: Record<string, AttributeValue>;
  events: { name: string; timeNanos: bigint; attributes: Record<string, AttributeValue> }[];
  /** OTLP StatusCode: 0 UNSET, 1 OK, 2 ERROR. */
  status: { code: number; message: string };
  resource: Record<string, AttributeValue>;
  scope: string;
}

export interface ReceivedExport {
  path: string;
  contentType: string;
  headers: IncomingHttpHeaders;
  spans: ReceivedSpan[];
}

export class OtlpReceiver {
  readonly exports: ReceivedExport[] = [];
  private server: Server | undefined;
  url = '';

  async start(): Promise<this> {
    const server = createServer((request, response) => {
      const parts: Buffer[] = [];
      request.on('data', (part: Buffer) => parts.push(part));
      request.on('end', () => {
        let body = Buffer.concat(parts);
        if (request.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
        const contentType = String(request.headers['content-type'] ?? '');
        const json = contentType.includes('json');
        const spans = json ? spansFromJson(JSON.parse(body.toString('utf8'))) : spansFromProtobuf(body);
        this.exports.push({ path: request.url ?? '', contentType, headers: request.headers, spans });
        // An empty ExportTraceServiceResponse: full success.
        response.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' });
        response.end(json ? '{}' : '');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.server = server;
    this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return this;
  }

  get spans(): ReceivedSpan[] {
    return this.exports.flatMap((received) => received.spans);
  }

  clear(): void {
    this.exports.length = 0;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

// ---- protobuf: the wire format (varints, fixed 32/64-bit, length-delimited fields) ----

type Field = { number: number; wire: 0; value: bigint } | { number: number; wire: 1 | 5; value: Buffer } | { number: number; wire: 2; value: Buffer };

function fieldsOf(buffer: Buffer): Field[] {
  const fields: Field[] = [];
  let at = 0;
  const varint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      const byte = buffer[at++];
      if (byte === undefined) throw new Error('truncated protobuf varint');
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result;
      shift += 7n;
    }
  };
  while (at < buffer.length) {
    const tag = Number(varint());
    const number = tag >>> 3;
    const wire = tag & 7;
    if (wire === 0) fields.push({ number, wire, value: varint() });
    else if (wire === 1 || wire === 5) {
      const size = wire === 1 ? 8 : 4;
      fields.push({ number, wire, value: buffer.subarray(at, at + size) });
      at += size;
    } else if (wire === 2) {
      const length = Number(varint());
      fields.push({ number, wire, value: buffer.subarray(at, at + length) });
      at += length;
    } else throw new Error(`unexpected protobuf wire type ${wire}`);
  }
  return fields;
}

const bytes = (fields: Field[], number: number): Buffer[] =>
  fields.filter((field) => field.number === number && field.wire === 2).map((field) => field.value as Buffer);
const first = (fields: Field[], number: number): Field | undefined => fields.find((field) => field.number === number);
const text = (fields: Field[], number: number): string => bytes(fields, number)[0]?.toString('utf8') ?? '';
const hex = (fields: Field[], number: number): string => bytes(fields, number)[0]?.toString('hex') ?? '';
const fixed64 = (fields: Field[], number: number): bigint => {
  const field = first(fields, number);
  return field && field.wire === 1 ? field.value.readBigUInt64LE(0) : 0n;
};
const varintOf = (fields: Field[], number: number): bigint => {
  const field = first(fields, number);
  return field && field.wire === 0 ? field.value : 0n;
};

/** common.proto AnyValue: string 1, bool 2, int 3, double 4, array 5, kvlist 6, bytes 7. */
function anyValue(buffer: Buffer): AttributeValue {
  const [field] = fieldsOf(buffer);
  if (!field) return '';
  switch (field.number) {
    case 1:
      return (field.value as Buffer).toString('utf8');
    case 2:
      return field.value === 1n;
    case 3:
      return Number(BigInt.asIntN(64, field.value as bigint));
    case 4:
      return (field.value as Buffer).readDoubleLE(0);
    case 5:
      return bytes(fieldsOf(field.value as Buffer), 1).map(anyValue);
    default:
      return (field.value as Buffer).toString('hex');
  }
}

/** KeyValue: key 1, value 2. */
function attributes(encoded: Buffer[]): Record<string, AttributeValue> {
  const result: Record<string, AttributeValue> = {};
  for (const pair of encoded) {
    const fields = fieldsOf(pair);
    result[text(fields, 1)] = anyValue(bytes(fields, 2)[0] ?? Buffer.alloc(0));
  }
  return result;
}

/** ExportTraceServiceRequest: resource_spans 1 → ResourceSpans (resource 1, scope_spans 2) → ScopeSpans (scope 1, spans 2). */
export function spansFromProtobuf(body: Buffer): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const resourceSpans of bytes(fieldsOf(body), 1)) {
    const rs = fieldsOf(resourceSpans);
    const resource = attributes(bytes(fieldsOf(bytes(rs, 1)[0] ?? Buffer.alloc(0)), 1));
    for (const scopeSpans of bytes(rs, 2)) {
      const ss = fieldsOf(scopeSpans);
      const scope = text(fieldsOf(bytes(ss, 1)[0] ?? Buffer.alloc(0)), 1);
      for (const encoded of bytes(ss, 2)) {
        // Span: trace_id 1, span_id 2, parent_span_id 4, name 5, kind 6, start 7, end 8, attributes 9, events 11, status 15.
        const span = fieldsOf(encoded);
        const status = fieldsOf(bytes(span, 15)[0] ?? Buffer.alloc(0));
        spans.push({
          traceId: hex(span, 1),
          spanId: hex(span, 2),
          parentSpanId: hex(span, 4),
          name: text(span, 5),
          kind: Number(varintOf(span, 6)),
          startNanos: fixed64(span, 7),
          endNanos: fixed64(span, 8),
          attributes: attributes(bytes(span, 9)),
          // Event: time 1, name 2, attributes 3.
          events: bytes(span, 11).map((event) => {
            const fields = fieldsOf(event);
            return { name: text(fields, 2), timeNanos: fixed64(fields, 1), attributes: attributes(bytes(fields, 3)) };
          }),
          // Status: message 2, code 3.
          status: { code: Number(varintOf(status, 3)), message: text(status, 2) },
          resource,
          scope,
        });
      }
    }
  }
  return spans;
}

// ---- JSON (the protocol's JSON mapping: ids in hex, 64-bit integers as strings or numbers) ----

interface JsonKeyValue {
  key: string;
  value: JsonAnyValue;
}
interface JsonAnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: number | string;
  doubleValue?: number;
  arrayValue?: { values?: JsonAnyValue[] };
}

function jsonValue(value: JsonAnyValue): AttributeValue {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map(jsonValue);
  return '';
}

const jsonAttributes = (list: JsonKeyValue[] | undefined): Record<string, AttributeValue> =>
  Object.fromEntries((list ?? []).map((pair) => [pair.key, jsonValue(pair.value)]));

interface JsonExport {
  resourceSpans?: {
    resource?: { attributes?: JsonKeyValue[] };
    scopeSpans?: {
      scope?: { name?: string };
      spans?: {
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind: number;
        startTimeUnixNano: string | number;
        endTimeUnixNano: string | number;
        attributes?: JsonKeyValue[];
        events?: { name: string; timeUnixNano: string | number; attributes?: JsonKeyValue[] }[];
        status?: { code?: number; message?: string };
      }[];
    }[];
  }[];
}

export function spansFromJson(body: JsonExport): ReceivedSpan[] {
  return (body.resourceSpans ?? []).flatMap((rs) => {
    const resource = jsonAttributes(rs.resource?.attributes);
    return (rs.scopeSpans ?? []).flatMap((ss) =>
      (ss.spans ?? []).map((span) => ({
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId: span.parentSpanId ?? '',
        name: span.name,
        kind: span.kind,
        startNanos: BigInt(span.startTimeUnixNano),
        endNanos: BigInt(span.endTimeUnixNano),
        attributes: jsonAttributes(span.attributes),
        events: (span.events ?? []).map((event) => ({ name: event.name, timeNanos: BigInt(event.timeUnixNano), attributes: jsonAttributes(event.attributes) })),
        status: { code: span.status?.code ?? 0, message: span.status?.message ?? '' },
        resource,
        scope: ss.scope?.name ?? '',
      })),
    );
  });
}
