import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { RelayMetrics } from './relay-metrics.js';

/** The price key and channel a task call (a Midjourney or Suno submit) went to, noted by its route. */
const routed = new WeakMap<FastifyRequest, { model: string; channel: number }>();

export function noteTaskCall(request: FastifyRequest, model: string, channel: number): void {
  routed.set(request, { model, channel });
}

/**
 * Counts every call of a task scope (/mj, /suno) in the relay's request metrics once its answer
 * is sent: by its route pattern and status, as served when it answered below 400 (with the price
 * key and channel a submit noted; reads answered from our own rows have neither), else as failed.
 * Their answers come whole, so no first-token time is observed.
 */
export function countTaskCalls(scope: FastifyInstance, metrics: RelayMetrics): void {
  scope.addHook('onResponse', (request, reply, done) => {
    const note = routed.get(request);
    const route = request.routeOptions.url ?? request.url.split('?')[0]!;
    const status = reply.statusCode;
    if (status < 400) metrics.served(route, note?.model ?? '', note?.channel ?? 0, status, reply.elapsedTime, -1);
    else metrics.failed(route, note?.model ?? '', status, reply.elapsedTime);
    done();
  });
}
