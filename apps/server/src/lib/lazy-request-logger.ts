import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions } from 'pino';

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
type LogCall = (...args: unknown[]) => void;

/**
 * Fastify's per-request logger, created only when a request logs something. Fastify makes a
 * pino child (with its request-id binding) for every request; on the relay, where almost no
 * request logs, building those children was a visible share of the allocation per request.
 * Methods live on the prototype, so an instance costs one small object.
 */
class LazyRequestLogger {
  private made: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  get logger(): FastifyBaseLogger {
    return (this.made ??= this.parent.child(this.bindings, this.options));
  }

  get level(): string {
    return (this.made ?? this.parent).level;
  }

  set level(level: string) {
    this.logger.level = level;
  }

  private call(level: Level, args: unknown[]): void {
    (this.logger[level] as LogCall)(...args);
  }

  fatal(...args: unknown[]): void {
    this.call('fatal', args);
  }
  error(...args: unknown[]): void {
    this.call('error', args);
  }
  warn(...args: unknown[]): void {
    this.call('warn', args);
  }
  info(...args: unknown[]): void {
    this.call('info', args);
  }
  debug(...args: unknown[]): void {
    this.call('debug', args);
  }
  trace(...args: unknown[]): void {
    this.call('trace', args);
  }
  silent(...args: unknown[]): void {
    this.call('silent', args);
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.logger.child(bindings, options);
  }
}

/** Fastify's `childLoggerFactory`: a request's logger, made on first use. */
export function lazyChildLogger(logger: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  return new LazyRequestLogger(logger, bindings, options) as unknown as FastifyBaseLogger;
}
