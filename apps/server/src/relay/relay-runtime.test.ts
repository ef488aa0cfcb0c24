import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { AppContext } from '../app-context.js';
import { startRelayRuntime, type RelayParts } from './relay-runtime.js';

/**
 * The relay's lifecycle at start: a flush (the scheduled one, or one a full log buffer asks for)
 * waits until this process is in the node list. A flush that ran before would find no heartbeat
 * row of its own, take the process for given back and register it again, and the registration
 * under way would then fail on the duplicate row, stopping the start.
 */
describe('the relay runtime at start', () => {
  it('flushes only once the process has given back dead nodes’ leases and registered', async () => {
    const steps: string[] = [];
    let finishReclaim!: () => void;
    const reclaiming = new Promise<void>((resolve) => {
      finishReclaim = resolve;
    });
    const parts = {
      cache: { lock: { run: <T>(task: () => Promise<T>) => task() }, start: async () => undefined },
      ledger: {
        flush: async () => {
          steps.push('flush');
          return { users: 0, tokens: 0, channels: 0, logs: 0 };
        },
        logs: { onBacklog: () => undefined },
      },
      reminders: { afterFlush: <T>(task: () => Promise<T>) => task(), settled: async () => undefined },
      leaseStore: {
        reclaimDead: async () => {
          await reclaiming;
          steps.push('reclaim');
          return { holders: 0, amount: 0 };
        },
        register: async () => {
          steps.push('register');
        },
      },
    } as unknown as RelayParts;
    const context = { config: { nodeStaleSeconds: 60 }, logger: pino({ level: 'silent' }), onClose: () => undefined } as unknown as AppContext;

    const runtime = startRelayRuntime(context, parts);
    const flushed = runtime.flush();
    // Every callback queued so far has run: the flush is still waiting.
    await new Promise((resolve) => setImmediate(resolve));
    expect(steps).toEqual([]);
    finishReclaim();
    await flushed;
    await runtime.ready;
    expect(steps).toEqual(['reclaim', 'register', 'flush']);
  });
});
