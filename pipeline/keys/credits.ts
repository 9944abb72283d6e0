/**
 * Credit reservations. Before work starts the gateway reserves the most a request can cost;
 * a request the balance (less what other in-flight requests hold) cannot cover is refused
 * with 402 before any work. After the work the reservation is settled at the real cost, or
 * released without a charge when the request failed. The holds themselves live in the key
 * registry, so they are shared by every gateway process in the distributed mode.
 */
import { AppError } from '../runtime/errors.js';
import type { KeyRecord, KeyRegistry } from './registry.js';

export interface Reservation {
  readonly key: KeyRecord;
  readonly credits: number;
  settled: boolean;
}

export class Credits {
  constructor(private readonly keys: KeyRegistry) {}

  async reserve(key: KeyRecord, credits: number): Promise<Reservation> {
    if (!(await this.keys.reserve(key, credits))) {
      throw new AppError('insufficient_credits', `this request needs up to ${credits} credits; the key's balance does not cover it`);
    }
    return { key, credits, settled: false };
  }

  async release(reservation: Reservation): Promise<void> {
    if (reservation.settled) return;
    reservation.settled = true;
    await this.keys.release(reservation.key, reservation.credits);
  }

  /**
   * Charges the real cost and ends the hold; returns the credits charged and the balance after
   * (null: unlimited). A request is never charged more than it reserved: the estimate is the
   * most a caller can be charged, so a balance never goes below zero.
   */
  async settle(
    reservation: Reservation,
    credits: number,
    meta: { requestId: string; op: string },
  ): Promise<{ charged: number; remaining: number | null }> {
    if (reservation.settled) throw new Error('reservation already settled');
    reservation.settled = true;
    const charged = reservation.key.unlimited ? credits : Math.min(credits, reservation.credits);
    return { charged, remaining: await this.keys.settle(reservation.key, reservation.credits, charged, meta) };
  }
}
