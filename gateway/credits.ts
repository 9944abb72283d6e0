/**
 * Credit reservations. Before work starts the gateway reserves the most a request can cost;
 * a request the balance (less what other in-flight requests hold) cannot cover is refused
 * with 402 before any work. After the work the reservation is settled at the real cost, or
 * released without a charge when the request failed.
 */
import { AppError } from '../pipeline/errors.js';
import type { KeyRecord, KeyRegistry } from '../pipeline/keys/registry.js';

export interface Reservation {
  readonly keyId: string;
  readonly credits: number;
  settled: boolean;
}

export class Credits {
  private readonly held = new Map<string, number>();

  constructor(private readonly keys: KeyRegistry) {}

  reserve(key: KeyRecord, credits: number): Reservation {
    if (!key.unlimited && credits > 0) {
      const held = this.held.get(key.id) ?? 0;
      const available = (key.balance ?? 0) - held;
      if (available < credits) {
        throw new AppError(
          'insufficient_credits',
          `this request needs up to ${credits} credits; the key has ${Math.max(available, 0)} available`,
        );
      }
    }
    this.held.set(key.id, (this.held.get(key.id) ?? 0) + credits);
    return { keyId: key.id, credits, settled: false };
  }

  release(reservation: Reservation): void {
    if (reservation.settled) return;
    reservation.settled = true;
    const left = (this.held.get(reservation.keyId) ?? 0) - reservation.credits;
    if (left > 0) this.held.set(reservation.keyId, left);
    else this.held.delete(reservation.keyId);
  }

  /** Charges the real cost and releases the hold; returns the balance after (null: unlimited). */
  async settle(reservation: Reservation, credits: number, meta: { requestId: string; op: string }): Promise<number | null> {
    this.release(reservation);
    return this.keys.charge(reservation.keyId, credits, meta);
  }
}
