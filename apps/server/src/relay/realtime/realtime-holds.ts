import type { ChargeService, Reservation, Settlement } from '../../domain/billing/charge-service.js';
import { toAppError } from '../../errors/render.js';
import type { AppError } from '../../errors/app-error.js';
import type { Payer } from '../../domain/billing/payer.js';

/** A top-up takes this much more than it lacks, so that a user speaking does not take a little at every audio chunk. */
const TOP_UP_HEADROOM = 1.25;

/**
 * The balance a Realtime session holds, through the relay's ChargeService (the same leases and
 * conditional takes as every call, so the session and the payer's other calls never spend more than
 * the balance):
 *
 * - the spare: what the next response may cost, held before it exists. A response can start
 *   without a client event (server VAD starts one when the user stops speaking), so the spare is
 *   there all along, grown as the conversation grows, and taken by the next response.created;
 * - each response under way holds what its spare held, until its response.done settles it.
 *
 * A spare that cannot be held (or grown) means the balance cannot pay for another response.
 */
export class RealtimeHolds {
  private spare: Reservation | undefined;
  /** The spare's growth under way, one at a time. */
  private growing: Promise<true | AppError> | undefined;
  private readonly responses = new Map<string, Reservation>();
  private ended = false;

  constructor(
    private readonly charges: ChargeService,
    private readonly payer: Payer,
  ) {}

  /** The first spare, held before the session opens: throws the relay's 403 when the balance cannot cover it. */
  async start(amount: number): Promise<void> {
    this.spare = this.charges.reserveFromLease(this.payer, amount) ?? (await this.charges.reserve(this.payer, undefined, () => ({ full: amount })));
  }

  get spareHeld(): number {
    return this.spare?.held ?? 0;
  }

  get hasSpare(): boolean {
    return this.spare !== undefined;
  }

  /** Responses under way. */
  get open(): number {
    return this.responses.size;
  }

  /**
   * Makes the spare at least `amount`: at once when it is, or when this process's leases cover the
   * rest; else after a take from the balance (which may wait for the payer's other calls to
   * settle). The refusal (403, insufficient user or token quota) when the balance cannot pay for it.
   */
  ensure(amount: number): true | Promise<true | AppError> {
    if (this.spare !== undefined && this.spare.held >= amount) return true;
    if (this.growing) return this.growing.then(() => this.ensure(amount));
    const lack = Math.ceil(amount * TOP_UP_HEADROOM) - this.spareHeld;
    const leased = this.charges.reserveFromLease(this.payer, lack);
    if (leased) {
      this.add(leased);
      return true;
    }
    const growing = this.charges
      .reserve(this.payer, undefined, () => ({ full: Math.max(0, amount - this.spareHeld) }))
      .then(
        (taken): true => {
          this.add(taken);
          return true;
        },
        (error: unknown) => toAppError(error),
      );
    this.growing = growing;
    void growing.then(() => {
      if (this.growing === growing) this.growing = undefined;
    });
    return growing;
  }

  /** Holds are additive on one payer: two are one of their sum. A take that lands after the session ended goes back. */
  private add(reservation: Reservation): void {
    if (this.ended) this.charges.release(reservation);
    else this.spare = { payer: this.payer, held: this.spareHeld + reservation.held };
  }

  /** A response started: it takes the spare. False when there was none to take (the response is not paid for). */
  take(responseId: string): boolean {
    const spare = this.spare;
    if (spare === undefined) return false;
    this.spare = undefined;
    this.responses.set(responseId, spare);
    return true;
  }

  has(responseId: string): boolean {
    return this.responses.has(responseId);
  }

  /** A response ended: its hold pays its cost (charge-service.ts settle). Undefined for a response it did not hold. */
  settle(responseId: string, cost: number, channelId: number): Settlement | Promise<Settlement> | undefined {
    const held = this.responses.get(responseId);
    if (held === undefined) return undefined;
    this.responses.delete(responseId);
    return this.charges.settle(held, cost, channelId);
  }

  /** A response ended without usage: its hold goes back. */
  release(responseId: string): void {
    const held = this.responses.get(responseId);
    if (held === undefined) return;
    this.responses.delete(responseId);
    this.charges.release(held);
  }

  /** The session ended: every hold goes back (a growth still under way gives its take back when it lands). */
  releaseAll(): void {
    this.ended = true;
    for (const id of [...this.responses.keys()]) this.release(id);
    if (this.spare) this.charges.release(this.spare);
    this.spare = undefined;
  }

  /** Resolves once no growth is under way. */
  async settled(): Promise<void> {
    while (this.growing) await this.growing;
  }
}
