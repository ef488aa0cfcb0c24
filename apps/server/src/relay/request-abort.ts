import { EventEmitter } from 'node:events';

/**
 * Cancels one upstream request. undici takes an EventEmitter with `aborted` as a request signal;
 * it costs a fraction of an AbortController (an EventTarget) on a path taken by every request.
 * `clientLeft` tells a client's hang-up apart from the relay's own aborts (a stream timeout).
 */
export class RequestAbort extends EventEmitter {
  aborted = false;
  clientLeft = false;

  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    this.emit('abort');
  }

  /** The client hung up: the upstream request is of no use any more. */
  clientLeaves(): void {
    this.clientLeft = true;
    this.abort();
  }
}
