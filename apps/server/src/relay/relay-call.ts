import type { RelayReply, RelayRequest } from './relay-exchange.js';
import type { ProviderAdaptor } from '../providers/provider-types.js';
import { cappedInput, type ChatOutputLimitField } from './completion-cap.js';
import type { RelayCaller } from './relay-auth.js';
import type { RelayInput } from './relay-input.js';
import type { CallTrace } from './relay-trace.js';
import { RequestAbort } from './request-abort.js';

/** One request while it is forwarded: who asked for what, and whether they are still there. */
export class Call {
  readonly abort = new RequestAbort();
  /** The output tokens the payer's balance pays for, when it could not pay for the call's bound. */
  outputCap: number | undefined;
  /** A capped call's prompt as the reservation counted it: billed if its stream is cut before the upstream reports one. */
  countedPrompt: number | undefined;
  private capped: Partial<Record<ChatOutputLimitField, RelayInput>> | undefined;

  constructor(
    readonly request: RelayRequest,
    readonly reply: RelayReply,
    readonly caller: RelayCaller,
    readonly input: RelayInput,
    /** performance.now() when the request arrived. */
    readonly startedAt: number,
    /** The call's span; undefined while traces are off. */
    readonly trace: CallTrace | undefined,
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

  /** The input as it goes to an upstream of this adaptor: with the output cap, when there is one. */
  inputFor(adaptor: ProviderAdaptor): RelayInput {
    const cap = this.outputCap;
    if (cap === undefined) return this.input;
    const field = adaptor.chatOutputLimitField ?? 'max_tokens';
    this.capped ??= {};
    return (this.capped[field] ??= cappedInput(this.input, cap, field));
  }

  clientGone(): boolean {
    return this.abort.clientLeft;
  }
}
