import { z } from 'zod';

/**
 * OpenTelemetry's standard variables for traces, as the gateway honours them
 * (https://opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/,
 * https://opentelemetry.io/docs/specs/otel/protocol/exporter/). Traces are on only when an OTLP
 * endpoint is given and the SDK is not disabled; otherwise no provider or exporter is built.
 */
export interface TracingConfig {
  /** Where spans are POSTed: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as given, else OTEL_EXPORTER_OTLP_ENDPOINT + /v1/traces. */
  url: string;
  protocol: 'http/protobuf' | 'http/json';
  /** OTEL_EXPORTER_OTLP_HEADERS with OTEL_EXPORTER_OTLP_TRACES_HEADERS over it. */
  headers: Record<string, string>;
  timeoutMillis: number;
  compression: 'gzip' | 'none';
  /** OTEL_SERVICE_NAME, else service.name of OTEL_RESOURCE_ATTRIBUTES, else "modelgate". */
  serviceName: string;
  /** OTEL_RESOURCE_ATTRIBUTES (service.name taken out). */
  resourceAttributes: Record<string, string>;
  sampler: { kind: SamplerKind; ratio: number };
  batch: { maxQueueSize: number; maxExportBatchSize: number; scheduledDelayMillis: number; exportTimeoutMillis: number };
}

export const SAMPLER_KINDS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;
export type SamplerKind = (typeof SAMPLER_KINDS)[number];

const DEFAULT_SERVICE_NAME = 'modelgate';

const text = z
  .string()
  .optional()
  .transform((raw) => raw?.trim() ?? '');

const millis = (fallback: number, min: number) =>
  text.transform((raw, ctx) => {
    if (raw === '') return fallback;
    if (!/^\d+$/.test(raw) || Number(raw) < min) {
      ctx.addIssue({ code: 'custom', message: `must be a whole number of at least ${min}, got "${raw}"` });
      return z.NEVER;
    }
    return Number(raw);
  });

const httpUrl = text.refine((url) => url === '' || /^https?:\/\/[^\s]+$/.test(url), 'must be an http:// or https:// address');

const protocol = text.transform((raw, ctx) => {
  const value = raw.toLowerCase();
  if (value === '' || value === 'http/protobuf' || value === 'http/json') return value;
  ctx.addIssue({
    code: 'custom',
    message:
      value === 'grpc'
        ? 'grpc is not offered by modelgate: use http/protobuf (the default; a collector listens for it on port 4318) or http/json'
        : `must be http/protobuf or http/json, got "${raw}"`,
  });
  return z.NEVER;
});

const compression = text.transform((raw, ctx) => {
  const value = raw.toLowerCase();
  if (value === '' || value === 'none' || value === 'gzip') return value;
  ctx.addIssue({ code: 'custom', message: `must be gzip or none, got "${raw}"` });
  return z.NEVER;
});

/**
 * A `key=value,key=value` list (W3C Baggage style, values percent-encoded), as OTEL_*_HEADERS and
 * OTEL_RESOURCE_ATTRIBUTES are written. `secret`: a bad entry is named by position, not quoted.
 */
const keyValues = (secret: boolean) =>
  text.transform((raw, ctx) => {
    const pairs: Record<string, string> = {};
    if (raw === '') return pairs;
    const entries = raw.split(',');
    for (const [index, entry] of entries.entries()) {
      if (entry.trim() === '') continue;
      const at = entry.indexOf('=');
      const key = at === -1 ? '' : entry.slice(0, at).trim();
      let value: string | undefined;
      try {
        value = at === -1 ? undefined : decodeURIComponent(entry.slice(at + 1).trim());
      } catch {
        value = undefined;
      }
      if (key === '' || value === undefined) {
        const which = secret ? `entry ${index + 1}` : `"${entry.trim()}"`;
        ctx.addIssue({ code: 'custom', message: `must be a list of key=value pairs separated by commas (values percent-encoded); ${which} is not` });
        return z.NEVER;
      }
      pairs[key] = value;
    }
    return pairs;
  });

const tracingEnv = z.object({
  OTEL_SDK_DISABLED: text.transform((raw, ctx) => {
    const value = raw.toLowerCase();
    if (value === '' || value === 'false') return false;
    if (value === 'true') return true;
    ctx.addIssue({ code: 'custom', message: `must be true or false, got "${raw}"` });
    return z.NEVER;
  }),
  OTEL_TRACES_EXPORTER: text.transform((raw, ctx) => {
    const value = raw.toLowerCase();
    if (value === '' || value === 'otlp') return 'otlp' as const;
    if (value === 'none') return 'none' as const;
    ctx.addIssue({ code: 'custom', message: `must be otlp or none (modelgate exports traces over OTLP/HTTP only), got "${raw}"` });
    return z.NEVER;
  }),
  OTEL_EXPORTER_OTLP_ENDPOINT: httpUrl,
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: httpUrl,
  OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: protocol,
  OTEL_EXPORTER_OTLP_HEADERS: keyValues(true),
  OTEL_EXPORTER_OTLP_TRACES_HEADERS: keyValues(true),
  OTEL_EXPORTER_OTLP_TIMEOUT: millis(10_000, 1),
  OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: text,
  OTEL_EXPORTER_OTLP_COMPRESSION: compression,
  OTEL_EXPORTER_OTLP_TRACES_COMPRESSION: compression,
  OTEL_SERVICE_NAME: text,
  OTEL_RESOURCE_ATTRIBUTES: keyValues(false),
  OTEL_TRACES_SAMPLER: text.transform((raw, ctx) => {
    const value = raw.toLowerCase();
    if (value === '') return 'parentbased_always_on';
    if ((SAMPLER_KINDS as readonly string[]).includes(value)) return value as SamplerKind;
    ctx.addIssue({ code: 'custom', message: `must be one of ${SAMPLER_KINDS.join(', ')}, got "${raw}"` });
    return z.NEVER;
  }),
  OTEL_TRACES_SAMPLER_ARG: text.transform((raw, ctx) => {
    if (raw === '') return 1;
    const ratio = Number(raw);
    if (!/^[0-9.eE+-]+$/.test(raw) || !Number.isFinite(ratio) || ratio < 0 || ratio > 1) {
      ctx.addIssue({ code: 'custom', message: `must be a sampling ratio from 0 to 1, got "${raw}"` });
      return z.NEVER;
    }
    return ratio;
  }),
  OTEL_BSP_MAX_QUEUE_SIZE: millis(2048, 1),
  OTEL_BSP_MAX_EXPORT_BATCH_SIZE: millis(512, 1),
  OTEL_BSP_SCHEDULE_DELAY: millis(5000, 0),
  OTEL_BSP_EXPORT_TIMEOUT: millis(30_000, 1),
});

/** The tracing configuration, undefined while traces are off; `problem` names the variable at fault. */
export function tracingConfigFrom(env: NodeJS.ProcessEnv): { config: TracingConfig | undefined } | { problem: string } {
  const parsed = tracingEnv.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return { problem: `${String(issue.path[0])} ${issue.message}` };
  }
  const value = parsed.data;
  // The signal's own timeout, parsed with the general one as its fallback.
  const timeout = millis(value.OTEL_EXPORTER_OTLP_TIMEOUT, 1).safeParse(value.OTEL_EXPORTER_OTLP_TRACES_TIMEOUT);
  if (!timeout.success) return { problem: `OTEL_EXPORTER_OTLP_TRACES_TIMEOUT ${timeout.error.issues[0]!.message}` };
  const url =
    value.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ||
    (value.OTEL_EXPORTER_OTLP_ENDPOINT === '' ? '' : `${value.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, '')}/v1/traces`);
  if (value.OTEL_SDK_DISABLED || value.OTEL_TRACES_EXPORTER === 'none' || url === '') return { config: undefined };
  const { 'service.name': namedInAttributes, ...resourceAttributes } = value.OTEL_RESOURCE_ATTRIBUTES;
  const batch = {
    maxQueueSize: value.OTEL_BSP_MAX_QUEUE_SIZE,
    maxExportBatchSize: Math.min(value.OTEL_BSP_MAX_EXPORT_BATCH_SIZE, value.OTEL_BSP_MAX_QUEUE_SIZE),
    scheduledDelayMillis: value.OTEL_BSP_SCHEDULE_DELAY,
    exportTimeoutMillis: value.OTEL_BSP_EXPORT_TIMEOUT,
  };
  return {
    config: {
      url,
      protocol: (value.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL || value.OTEL_EXPORTER_OTLP_PROTOCOL || 'http/protobuf') as TracingConfig['protocol'],
      headers: { ...value.OTEL_EXPORTER_OTLP_HEADERS, ...value.OTEL_EXPORTER_OTLP_TRACES_HEADERS },
      timeoutMillis: timeout.data,
      compression: (value.OTEL_EXPORTER_OTLP_TRACES_COMPRESSION || value.OTEL_EXPORTER_OTLP_COMPRESSION || 'none') as TracingConfig['compression'],
      serviceName: value.OTEL_SERVICE_NAME || namedInAttributes || DEFAULT_SERVICE_NAME,
      resourceAttributes,
      sampler: { kind: value.OTEL_TRACES_SAMPLER, ratio: value.OTEL_TRACES_SAMPLER_ARG },
      batch,
    },
  };
}
