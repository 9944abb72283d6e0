/**
 * The evidence of a domain report (POST /v1/domain/report): what each source said, kept in
 * the answer's `evidence` so every finding, concern and question can point at what it rests
 * on (`EvidenceRef`: a registry record, a DNS record, a page, an archived snapshot).
 */
import type { ArchiveCapture, SnapshotEvidence } from './history.js';
import type { PageSignals } from './signals.js';
import type { BacklinksSection, DnsSection, MailSection, RegistrationSection } from './sections.js';

/** Today's home page, as the scrape path read it. */
export interface WebsiteEvidence {
  readonly url: string;
  readonly finalUrl: string;
  readonly statusCode: number;
  readonly title: string | null;
  readonly language: string | null;
  readonly excerpt: string;
  readonly signals: PageSignals;
  /** The registrable domain the home page redirected to, when it is another one. */
  readonly redirectsTo: string | null;
}

export interface SnapshotFailure {
  readonly year: number;
  readonly code: string;
  readonly message: string;
}

export interface HistoryEvidence {
  /** The archive's yearly captures of the home page, oldest first (one a year). */
  readonly captures: readonly ArchiveCapture[];
  /** The snapshots loaded, newest first. */
  readonly snapshots: readonly SnapshotEvidence[];
  /** Years chosen to read whose snapshots are not loaded yet (POST /v1/domain/history/snapshots loads them). */
  readonly pending: readonly number[];
  /** Years whose archived page could not be read. */
  readonly failed: readonly SnapshotFailure[];
}

export type LinkCheck = 'linking' | 'missing' | 'unreachable';

export interface CheckedLink {
  readonly sourceUrl: string;
  readonly targetUrl: string;
  readonly lastSeen: string;
  readonly status: LinkCheck;
  /** Why a page could not be read. */
  readonly code?: string;
}

export interface LinksEvidence {
  readonly checked: number;
  readonly linking: number;
  readonly missing: number;
  readonly unreachable: number;
  readonly pages: readonly CheckedLink[];
}

/** Everything a report read; a section is null when it was not read or its source failed (the answer's `errors` say which). */
export interface ReportEvidence {
  readonly registration: RegistrationSection | null;
  readonly dns: DnsSection | null;
  readonly mail: MailSection | null;
  readonly website: WebsiteEvidence | null;
  readonly history: HistoryEvidence | null;
  readonly backlinks: BacklinksSection | null;
  readonly links: LinksEvidence | null;
}

/** What a finding, concern or question rests on. */
export type EvidenceRef =
  | { readonly kind: 'registration'; readonly field: string; readonly value: string | number | null; readonly source: string | null }
  | { readonly kind: 'dns'; readonly record: 'A' | 'AAAA' | 'MX' | 'NS' | 'TXT' | 'DMARC'; readonly value: string | null }
  | { readonly kind: 'website'; readonly url: string; readonly title: string | null }
  | { readonly kind: 'snapshot'; readonly year: number; readonly url: string; readonly title: string | null }
  | { readonly kind: 'page'; readonly url: string; readonly status: LinkCheck }
  | { readonly kind: 'backlinks'; readonly referringDomains: number };

export const registrationRef = (r: RegistrationSection, field: string, value: string | number | null): EvidenceRef => ({
  kind: 'registration',
  field,
  value,
  source: r.sources[0] ?? r.registry,
});

export const snapshotRef = (s: SnapshotEvidence): EvidenceRef => ({ kind: 'snapshot', year: s.year, url: s.archiveUrl, title: s.title });

export const websiteRef = (w: WebsiteEvidence): EvidenceRef => ({ kind: 'website', url: w.finalUrl, title: w.title });
