import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/env.js';
import { tracingConfigFrom } from './tracing-config.js';

const on = (env: Record<string, string>) => {
  const parsed = tracingConfigFrom({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', ...env });
  if ('problem' in parsed) throw new Error(parsed.problem);
  return parsed.config!;
};
const problem = (env: Record<string, string>) => {
  const parsed = tracingConfigFrom({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', ...env });
  return 'problem' in parsed ? parsed.problem : undefined;
};

describe('tracing configuration (OTEL_* variables)', () => {
  it('is off without an endpoint, when disabled, or with no exporter', () => {
    expect(tracingConfigFrom({})).toEqual({ config: undefined });
    expect(tracingConfigFrom({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'TRUE' })).toEqual({ config: undefined });
    expect(tracingConfigFrom({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_EXPORTER: 'none' })).toEqual({ config: undefined });
    expect(loadConfig({}).tracing).toBeUndefined();
  });

  it('takes the spec’s defaults: protobuf, /v1/traces appended, service modelgate, parent-based always on', () => {
    expect(on({})).toEqual({
      url: 'http://collector:4318/v1/traces',
      protocol: 'http/protobuf',
      headers: {},
      timeoutMillis: 10_000,
      compression: 'none',
      serviceName: 'modelgate',
      resourceAttributes: {},
      sampler: { kind: 'parentbased_always_on', ratio: 1 },
      batch: { maxQueueSize: 2048, maxExportBatchSize: 512, scheduledDelayMillis: 5000, exportTimeoutMillis: 30_000 },
    });
  });

  it('lets the traces-specific variables win over the general ones', () => {
    const config = on({
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://traces.example.com/api/spans',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_HEADERS: 'a=1,b=2',
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'b=3, authorization=Bearer%20xyz',
      OTEL_EXPORTER_OTLP_TIMEOUT: '2000',
      OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: '3000',
      OTEL_EXPORTER_OTLP_TRACES_COMPRESSION: 'gzip',
    });
    expect(config).toMatchObject({
      url: 'https://traces.example.com/api/spans',
      protocol: 'http/json',
      headers: { a: '1', b: '3', authorization: 'Bearer xyz' },
      timeoutMillis: 3000,
      compression: 'gzip',
    });
  });

  it('names the service from OTEL_SERVICE_NAME, else from OTEL_RESOURCE_ATTRIBUTES', () => {
    expect(on({ OTEL_RESOURCE_ATTRIBUTES: 'service.name=from-attributes,host.name=a%2Cb' })).toMatchObject({
      serviceName: 'from-attributes',
      resourceAttributes: { 'host.name': 'a,b' },
    });
    expect(on({ OTEL_SERVICE_NAME: 'edge', OTEL_RESOURCE_ATTRIBUTES: 'service.name=from-attributes' }).serviceName).toBe('edge');
  });

  it('reads the sampler and its ratio', () => {
    expect(on({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.25' }).sampler).toEqual({
      kind: 'parentbased_traceidratio',
      ratio: 0.25,
    });
    expect(on({ OTEL_TRACES_SAMPLER: 'ALWAYS_OFF' }).sampler.kind).toBe('always_off');
  });

  it('refuses bad values with a line naming the variable, and says grpc is not offered', () => {
    expect(problem({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toBe(
      'OTEL_EXPORTER_OTLP_PROTOCOL grpc is not offered by modelgate: use http/protobuf (the default; a collector listens for it on port 4318) or http/json',
    );
    expect(problem({ OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'thrift' })).toBe(
      'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL must be http/protobuf or http/json, got "thrift"',
    );
    expect(problem({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).toBe('OTEL_EXPORTER_OTLP_ENDPOINT must be an http:// or https:// address');
    expect(problem({ OTEL_TRACES_SAMPLER: 'jaeger_remote' })).toMatch(/^OTEL_TRACES_SAMPLER must be one of always_on, .*, got "jaeger_remote"$/);
    expect(problem({ OTEL_TRACES_SAMPLER_ARG: '1.5' })).toBe('OTEL_TRACES_SAMPLER_ARG must be a sampling ratio from 0 to 1, got "1.5"');
    expect(problem({ OTEL_TRACES_EXPORTER: 'zipkin' })).toMatch(/^OTEL_TRACES_EXPORTER must be otlp or none/);
    expect(problem({ OTEL_SDK_DISABLED: 'yes' })).toBe('OTEL_SDK_DISABLED must be true or false, got "yes"');
    expect(problem({ OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: 'soon' })).toBe('OTEL_EXPORTER_OTLP_TRACES_TIMEOUT must be a whole number of at least 1, got "soon"');
    expect(problem({ OTEL_BSP_MAX_QUEUE_SIZE: '0' })).toBe('OTEL_BSP_MAX_QUEUE_SIZE must be a whole number of at least 1, got "0"');
    // A header's value may be a secret: the bad entry is named by its place, never quoted.
    expect(problem({ OTEL_EXPORTER_OTLP_HEADERS: 'ok=1,api-key-without-equals' })).toBe(
      'OTEL_EXPORTER_OTLP_HEADERS must be a list of key=value pairs separated by commas (values percent-encoded); entry 2 is not',
    );
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(
      /^invalid configuration: OTEL_EXPORTER_OTLP_PROTOCOL grpc is not offered/,
    );
  });
});
