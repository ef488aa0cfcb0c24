import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { lazyChildLogger } from './lazy-request-logger.js';

function memoryLogger() {
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) });
  return { logger, lines };
}

describe('the lazy per-request logger', () => {
  it('makes no pino child until the request logs', () => {
    const { logger } = memoryLogger();
    let children = 0;
    const parent = Object.assign(Object.create(logger) as typeof logger, {
      child: (...args: Parameters<typeof logger.child>) => {
        children += 1;
        return logger.child(...args);
      },
    });
    const requestLogger = lazyChildLogger(parent, { reqId: 'req-1' }, {});
    expect(requestLogger.level).toBe('info');
    expect(children).toBe(0);
    requestLogger.warn({ url: '/v1/x' }, 'first');
    requestLogger.error('second');
    expect(children).toBe(1);
  });

  it('writes with the request binding, at the parent level', () => {
    const { logger, lines } = memoryLogger();
    const requestLogger = lazyChildLogger(logger, { reqId: 'req-7' }, {});
    requestLogger.debug('below the level');
    requestLogger.error({ err: new Error('boom') }, 'request failed');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ reqId: 'req-7', msg: 'request failed', err: { message: 'boom' } });
    expect(requestLogger.child({ part: 'x' }).level).toBe('info');
  });
});
