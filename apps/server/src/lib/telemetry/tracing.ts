import type { IncomingHttpHeaders } from 'node:http';
import { type Context, defaultTextMapGetter, ROOT_CONTEXT, type Tracer } from '@opentelemetry/api';
import { type ExportResult, ExportResultCode, W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BasicTracerProvider,
  BatchSpanProcessor,
  ParentBasedSampler,
  type ReadableSpan,
  type Sampler,
  type SpanExporter,
  TraceIdRatioBasedSampler,
} from '@opentelemetry/sdk-trace-base';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import type { Logger } from 'pino';
import type { TracingConfig } from './tracing-config.js';

/** Failed exports are logged at most this often: a collector that is down must not flood the log. */
const EXPORT_ERROR_LOG_INTERVAL_MS = 60_000;
/** The longest shutdown waits for the last spans to leave. */
export const TRACING_SHUTDOWN_LIMIT_MS = 5_000;

/**
 * This process's OpenTelemetry traces (the root README, "Observability: traces"): a tracer provider over a batch
 * processor and an OTLP/HTTP exporter (protobuf or JSON), built only while traces are on. Nothing
 * is registered globally: spans are made through `tracer` and parented explicitly, so no context
 * manager or auto-instrumentation runs on the request path.
 */
export class Tracing {
  readonly tracer: Tracer;
  private readonly provider: BasicTracerProvider;
  private readonly propagator = new W3CTraceContextPropagator();
  private closed: Promise<void> | undefined;

  constructor(
    readonly config: TracingConfig,
    version: string,
    private readonly logger: Logger,
  ) {
    const exporter = new ReportingExporter(createExporter(config), logger);
    this.provider = new BasicTracerProvider({
      resource: resourceFromAttributes({ ...config.resourceAttributes, [ATTR_SERVICE_NAME]: config.serviceName, [ATTR_SERVICE_VERSION]: version }),
      sampler: createSampler(config.sampler),
      spanProcessors: [new BatchSpanProcessor(exporter, { ...config.batch })],
    });
    this.tracer = this.provider.getTracer('modelgate', version);
  }

  /** The client's trace (a W3C `traceparent` header, with its `tracestate`) as the parent context; the root context without one. */
  parentOf(headers: IncomingHttpHeaders): Context {
    if (headers.traceparent === undefined) return ROOT_CONTEXT;
    return this.propagator.extract(ROOT_CONTEXT, headers, defaultTextMapGetter);
  }

  /** Sends the spans ended so far; resolves when the collector has answered (a refusal is logged by the exporter, never thrown). */
  flush(): Promise<void> {
    return this.provider.forceFlush().catch(() => undefined);
  }

  /** Sends what is queued and stops, waiting at most `limitMs`; never throws. */
  shutdown(limitMs = TRACING_SHUTDOWN_LIMIT_MS): Promise<void> {
    this.closed ??= (async () => {
      let timer: NodeJS.Timeout | undefined;
      const limit = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), limitMs);
      });
      try {
        const outcome = await Promise.race([this.provider.shutdown().then(() => 'done' as const), limit]);
        if (outcome === 'timeout') this.logger.warn({ limitMs }, 'traces: the last spans were not sent in time and are lost');
      } catch (error) {
        this.logger.warn({ err: error }, 'traces: sending the last spans failed');
      } finally {
        clearTimeout(timer);
      }
    })();
    return this.closed;
  }
}

function createExporter(config: TracingConfig): SpanExporter {
  const options = {
    url: config.url,
    headers: config.headers,
    timeoutMillis: config.timeoutMillis,
    // The exporters' option is a string enum of these two values.
    compression: config.compression as NonNullable<ConstructorParameters<typeof ProtobufTraceExporter>[0]>['compression'],
  };
  return config.protocol === 'http/json' ? new JsonTraceExporter(options) : new ProtobufTraceExporter(options);
}

function createSampler({ kind, ratio }: TracingConfig['sampler']): Sampler {
  switch (kind) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(ratio);
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) });
    default: {
      const unreachable: never = kind;
      return unreachable;
    }
  }
}

/** The exporter, with its failures logged (at most once a minute, with the spans lost since). */
class ReportingExporter implements SpanExporter {
  private lost = 0;
  private lastLogged = 0;

  constructor(
    private readonly inner: SpanExporter,
    private readonly logger: Logger,
  ) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.inner.export(spans, (result) => {
      if (result.code !== ExportResultCode.SUCCESS) this.failed(spans.length, result.error);
      done(result);
    });
  }

  private failed(count: number, error: Error | undefined): void {
    this.lost += count;
    const now = Date.now();
    if (now - this.lastLogged < EXPORT_ERROR_LOG_INTERVAL_MS) return;
    this.lastLogged = now;
    this.logger.warn({ err: error, lostSpans: this.lost }, 'traces: the OTLP endpoint did not take a batch of spans');
    this.lost = 0;
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}
