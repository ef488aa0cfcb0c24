import type { Dispatcher } from 'undici';

/**
 * What has arrived of an upstream answer's body. An upstream that answers at once often has its
 * whole answer, end included, in the body before the relay reads it (one socket read brings it
 * all), and then the relay reads it there and then instead of waiting on events.
 *
 * Node's Readable has no public flag for "ended, end not yet emitted"; without its state these
 * say no, and the body is read through its events as usual.
 */
type Body = Dispatcher.ResponseData['body'];

const readableState = (body: Body) => (body as { _readableState?: { ended?: unknown; length?: unknown } })._readableState;

/** The upstream has sent its whole body (its end is queued), read or not. */
export function upstreamEnded(body: Body): boolean {
  const state = readableState(body);
  return state !== undefined && state.ended === true && !body.destroyed;
}

/** The body holds no more bytes and its end is queued: what was just read is the upstream's last. */
export function upstreamDrained(body: Body): boolean {
  const state = readableState(body);
  return state !== undefined && state.ended === true && state.length === 0;
}

/**
 * The whole body when it has all arrived, read at once (a body not flowing hands over everything
 * it holds in one read); undefined while bytes are still to come.
 */
export function arrivedBody(body: Body): Buffer | undefined {
  if (!upstreamEnded(body)) return undefined;
  return (body.read() as Buffer | null) ?? Buffer.alloc(0);
}
