import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SpanKind } from '@opentelemetry/api';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { OtlpReceiver } from './testing/otlp-receiver.js';
import { Tracing } from './tracing.js';
import { type TracingConfig, tracingConfigFrom } from './tracing-config.js';

function configFor(url: string, env: Record<string, string> = {}): TracingConfig {
  const parsed = tracingConfigFrom({ OTEL_EXPORTER_OTLP_ENDPOINT: url, OTEL_BSP_SCHEDULE_DELAY: '600000', ...env });
  if ('problem' in parsed) throw new Error(parsed.problem);
  return parsed.config!;
}

function memoryLogger() {
  const lines: Record<string, unknown>[] = [];
  return { lines, logger: pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) }) };
}

/** A collector that answers every export with `status`, or never (`undefined`), keeping the requests it holds. */
async function collector(status: number | undefined): Promise<{ url: string; held: IncomingMessage[]; server: Server; arrived: Promise<void> }> {
  const held: IncomingMessage[] = [];
  let firstArrived = () => undefined as void;
  const arrived = new Promise<void>((resolve) => {
    firstArrived = resolve;
  });
  const server = createServer((request, response) => {
    request.resume();
    firstArrived();
    if (status === undefined) held.push(request);
    else request.on('end', () => response.writeHead(status, { 'content-type': 'application/x-protobuf' }).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, held, server, arrived };
}

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

describe('Tracing', () => {
  it('sends gzip-compressed protobuf when asked, with the resource it was configured with', async () => {
    const receiver = await new OtlpReceiver().start();
    const { logger } = memoryLogger();
    const tracing = new Tracing(configFor(receiver.url, { OTEL_EXPORTER_OTLP_COMPRESSION: 'gzip', OTEL_RESOURCE_ATTRIBUTES: 'team=relay' }), '1.2.3', logger);
    tracing.tracer.startSpan('one', { kind: SpanKind.INTERNAL }).end();
    await tracing.shutdown();
    await receiver.close();
    expect(receiver.exports[0]!.headers['content-encoding']).toBe('gzip');
    expect(receiver.spans.map((span) => [span.name, span.resource])).toEqual([
      ['one', { team: 'relay', 'service.name': 'modelgate', 'service.version': '1.2.3' }],
    ]);
  });

  it('logs an export the collector refuses, with the spans lost', async () => {
    const refusing = await collector(400);
    servers.push(refusing.server);
    const { lines, logger } = memoryLogger();
    const tracing = new Tracing(configFor(refusing.url), 'test', logger);
    tracing.tracer.startSpan('lost').end();
    tracing.tracer.startSpan('lost too').end();
    await tracing.flush();
    expect(lines.filter((line) => line.level === 40).map((line) => [line.msg, line.lostSpans])).toEqual([
      ['traces: the OTLP endpoint did not take a batch of spans', 2],
    ]);
    await tracing.shutdown();
  });

  it('stops within its limit when the collector does not answer, saying the last spans are lost', async () => {
    const silent = await collector(undefined);
    servers.push(silent.server);
    const { lines, logger } = memoryLogger();
    const tracing = new Tracing(configFor(silent.url), 'test', logger);
    tracing.tracer.startSpan('stuck').end();
    // The export is under way (the collector holds it) before the shutdown starts its clock.
    void tracing.flush();
    await silent.arrived;
    const started = performance.now();
    await tracing.shutdown(200);
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(silent.held).toHaveLength(1);
    expect(lines.map((line) => line.msg)).toContain('traces: the last spans were not sent in time and are lost');
  });
});
