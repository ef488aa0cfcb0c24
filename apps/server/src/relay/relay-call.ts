import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RelayCaller } from './relay-auth.js';
import type { RelayInput } from './relay-input.js';
import { RequestAbort } from './request-abort.js';

/** One request while it is forwarded: who asked for what, and whether they are still there. */
export class Call {
  readonly abort = new RequestAbort();

  constructor(
    readonly request: FastifyRequest,
    readonly reply: FastifyReply,
    readonly caller: RelayCaller,
    readonly input: RelayInput,
    /** performance.now() when the request arrived. */
    readonly startedAt: number,
  ) {
    reply.raw.on('close', () => this.leave());
    // The client may have hung up while we were authenticating and reserving.
    if (request.raw.socket?.destroyed || reply.raw.destroyed) this.leave();
  }

  /** A response closing before it was finished means the client went away. */
  private leave(): void {
    if (this.abort.clientLeft || this.reply.raw.writableFinished) return;
    this.abort.clientLeaves();
  }

  clientGone(): boolean {
    return this.abort.clientLeft;
  }
}
