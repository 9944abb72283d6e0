/** Request schemas of site and company intelligence: domain, company, products, posts, report, snapshots, screen. */
import { Type, type Static } from '@sinclair/typebox';
import { Closed, DomainOrUrl, Nullable, StringEnum } from './common.js';

export const DomainBody = Closed({
  domain: DomainOrUrl('A domain or any URL on it; a URL and its bare domain are the same request.'),
  registration: Type.Optional(Type.Boolean({ default: true, description: 'Registration and expiry dates, age, registrar, nameservers.' })),
  dns: Type.Optional(Type.Boolean({ default: true, description: 'A, AAAA, MX, NS, TXT records.' })),
  backlinks: Type.Optional(Type.Boolean({ default: true, description: 'Domains known to link to this one.' })),
  backlinkLimit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100, description: 'Referring domains listed, busiest first.' })),
});
export type DomainBody = Static<typeof DomainBody>;

export const CompanyBody = Closed({
  url: DomainOrUrl('A company domain or any URL on it.'),
  contacts: Type.Optional(Type.Boolean({ default: true, description: 'Also return contact emails, contact form and social links.' })),
});
export type CompanyBody = Static<typeof CompanyBody>;

export const ListingBody = Closed({
  url: DomainOrUrl('The store, blog or forum: a domain or any URL on it.'),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 10000, default: 500, description: 'Most items returned.' })),
});
export type ListingBody = Static<typeof ListingBody>;

export const DomainReportBody = Closed({
  domain: DomainOrUrl('A domain or any URL on it.'),
  depth: Type.Optional(StringEnum(['quick', 'buyer', 'deep'], { default: 'buyer' })),
  snapshots: Type.Optional(
    Nullable(Type.Integer({ minimum: 0, maximum: 24 }), { description: 'Archived homepage snapshots read, one per year at most; default 6 for `buyer`, 12 for `deep`.' }),
  ),
  verifyLinks: Type.Optional(
    Nullable(Type.Integer({ minimum: 0, maximum: 100 }), { description: 'Linking pages checked for the link; default 20 for `buyer`, 50 for `deep`.' }),
  ),
});
export type DomainReportBody = Static<typeof DomainReportBody>;

export const SnapshotsBody = Closed({
  domain: DomainOrUrl('The domain a report was made for.'),
  years: Type.Optional(
    Nullable(Type.Array(Type.Integer({ minimum: 1990, maximum: 2100 }), { maxItems: 24 }), {
      description: 'Only these years, taken from `evidence.history.pending`; omitted means every snapshot not yet read.',
    }),
  ),
  snapshots: Type.Optional(Type.Integer({ minimum: 1, maximum: 24, default: 6, description: 'The figure the report used.' })),
});
export type SnapshotsBody = Static<typeof SnapshotsBody>;

export const DomainScreenBody = Closed({
  domains: Type.Array(Type.String({ minLength: 1, maxLength: 2048 }), {
    minItems: 1,
    maxItems: 500,
    description: 'Domains or URLs on them; duplicates are checked once.',
  }),
  dns: Type.Optional(Type.Boolean({ default: true, description: 'Check DNS for names the registry has no record of.' })),
});
export type DomainScreenBody = Static<typeof DomainScreenBody>;
