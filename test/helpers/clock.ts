/**
 * A fixed instant for suites that inject a clock and write rows the store keeps for a while.
 *
 * The store drops monitor checks and watch collections 90 days after they were queued (a TTL,
 * measured by the store's own clock: DDL may use it). A suite that pinned a calendar date
 * (2026-11-26) would see its own rows dropped once that date is 90 days old, which CI's run
 * with the clock moved 400 days ahead shows at once. So such a suite pins yesterday's noon
 * (UTC) by the system clock: whole minutes and hours stay whole, the store keeps the rows,
 * and nothing depends on what today's date is.
 */
const DAY_MS = 86_400_000;

export function recentNoon(nowMs = Date.now()): number {
  return Math.floor(nowMs / DAY_MS) * DAY_MS - DAY_MS + DAY_MS / 2;
}
