import { EventEmitter } from 'node:events';
import { errors } from 'undici';

/**
 * Cancels one upstream request. undici takes an EventEmitter with `aborted` as a request signal;
 * it costs a fraction of an AbortController (an EventTarget) on a path taken by every request.
 * `clientLeft` tells a client's hang-up apart from the relay's own aborts (a stream timeout).
 */
export class RequestAbort extends EventEmitter {
  aborted = false;
  clientLeft = false;
  /** The whole answer being read (UpstreamClient.collect) cancels itself here: one call, no listener. */
  onAbort: ((reason: Error) => void) | undefined = undefined;

  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    this.onAbort?.(new errors.RequestAbortedError());
    this.emit('abort');
  }

  /** The client hung up: the upstream request is of no use any more. */
  clientLeaves(): void {
    this.clientLeft = true;
    this.abort();
  }
}
