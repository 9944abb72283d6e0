/**
 * A domain's archive history, as a report and a snapshot load read it: the Wayback Machine's
 * yearly captures of the home page (one per year, pipeline/clients/wayback.ts), the years
 * chosen to read (`planYears`), what one archived snapshot shows (`snapshotEvidence`), and
 * what loading a year costs (`snapshotPrice`, charging rules 7 and 8).
 */
import { INCLUDED_SNAPSHOT_DAYS, PRICES, type Price } from '../../schemas/api/prices.js';
import { excerptOf, type PageRead } from './pages.js';
import { pageIdentity, pageSignals, type PageIdentity, type PageSignals } from './signals.js';

/** One yearly capture of the home page, as kept with a report. */
export interface ArchiveCapture {
  readonly year: number;
  /** 14 digits, `yyyyMMddhhmmss`. */
  readonly timestamp: string;
  /** The URL the archive captured. */
  readonly original: string;
  /** The raw archived page (`<WAYBACK_URL>/web/<timestamp>id_/<original>`). */
  readonly archiveUrl: string;
}

/** What one archived snapshot shows: the evidence the history rules read. */
export interface SnapshotEvidence {
  readonly year: number;
  readonly timestamp: string;
  /** The capture's time, ISO 8601. */
  readonly capturedAt: string;
  readonly archiveUrl: string;
  readonly original: string;
  readonly statusCode: number;
  readonly title: string | null;
  readonly language: string | null;
  readonly excerpt: string;
  readonly signals: PageSignals;
  readonly identity: PageIdentity;
}

/** A 14-digit Wayback timestamp as ISO 8601 (UTC); the input itself when it is not one. */
export function capturedAt(timestamp: string): string {
  if (!/^\d{14}$/.test(timestamp)) return timestamp;
  const [y, mo, d, h, mi, s] = [timestamp.slice(0, 4), timestamp.slice(4, 6), timestamp.slice(6, 8), timestamp.slice(8, 10), timestamp.slice(10, 12), timestamp.slice(12, 14)];
  return `${y}-${mo}-${d}T${h}:${mi}:${s}Z`;
}

/**
 * The years to read, at most `count`, from the captures' years: all of them when there are
 * no more than `count`; else spread evenly over the history, the oldest and the newest always
 * among them (an owner change shows between distant years). Newest first: the order they are
 * read in, and the order in which a report's price includes them.
 */
export function planYears(captures: readonly Pick<ArchiveCapture, 'year'>[], count: number): number[] {
  const years = [...new Set(captures.map((c) => c.year))].sort((a, b) => a - b);
  if (count <= 0 || years.length === 0) return [];
  if (years.length <= count) return years.reverse();
  if (count === 1) return [years[years.length - 1] as number];
  const chosen = new Set<number>();
  for (let i = 0; i < count; i++) chosen.add(years[Math.round((i * (years.length - 1)) / (count - 1))] as number);
  return [...chosen].sort((a, b) => b - a);
}

/** The years of a plan a report's flat price includes: the first `included` of it (newest first). */
export function includedYears(plan: readonly number[], included: number): number[] {
  return plan.slice(0, Math.max(0, included));
}

export function snapshotEvidence(capture: ArchiveCapture, page: PageRead): SnapshotEvidence {
  return {
    year: capture.year,
    timestamp: capture.timestamp,
    capturedAt: capturedAt(capture.timestamp),
    archiveUrl: capture.archiveUrl,
    original: capture.original,
    statusCode: page.statusCode,
    title: page.title,
    language: page.language,
    excerpt: excerptOf(page.markdown),
    signals: pageSignals(page),
    identity: pageIdentity(page),
  };
}

/** Why a year loads at the price it does. */
export type SnapshotCharge = 'stored' | 'included' | 'extra' | 'loaded';

export const SNAPSHOT_CHARGES: Readonly<Record<SnapshotCharge, Price>> = {
  /** Loaded by this key before: answered from the store (rule 8). */
  stored: PRICES.storedSnapshot,
  /** Included in the report's flat price; by a snapshot load, within 7 days of the report (rules 7, 8). */
  included: PRICES.includedSnapshot,
  /** Read by a report beyond the snapshots its depth includes (rule 7). */
  extra: PRICES.extraSnapshot,
  /** Loaded by a snapshot load, not included (or past the 7 days) (rule 8). */
  loaded: PRICES.loadedSnapshot,
};

const DAY_MS = 86_400_000;

/**
 * What loading `year` costs. In a report (`report: null` for the report being made): stored
 * free, among the years its depth includes free, else `extra`. In a snapshot load after the
 * report `report` (made at `createdAtMs`, including `included`): stored free, included and
 * within INCLUDED_SNAPSHOT_DAYS free, else `loaded`.
 */
export function snapshotCharge(
  year: number,
  context: { readonly stored: boolean; readonly included: readonly number[]; readonly report: { readonly createdAtMs: number } | null; readonly nowMs: number },
): SnapshotCharge {
  if (context.stored) return 'stored';
  const included = context.included.includes(year);
  if (context.report === null) return included ? 'included' : 'extra';
  return included && context.nowMs - context.report.createdAtMs <= INCLUDED_SNAPSHOT_DAYS * DAY_MS ? 'included' : 'loaded';
}
