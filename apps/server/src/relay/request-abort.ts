import { EventEmitter } from 'node:events';

/**
 * Cancels one upstream request. undici takes an EventEmitter with `aborted` as a request signal;
 * it costs a fraction of an AbortController (an EventTarget) on a path taken by every request.
 */
export class RequestAbort extends EventEmitter {
  aborted = false;

  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    this.emit('abort');
  }
}
