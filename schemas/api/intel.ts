/** Request schemas of site and company intelligence: domain, company, products, posts, report, snapshots, screen. */
import { Type, type Static } from '@sinclair/typebox';
import { Closed, DomainOrUrl, Nullable, StringEnum } from './common.js';
import { op, type Operation } from './operation-row.js';

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

/** The site and company intelligence operations: their rows of the operation table (schemas/api/operations.ts). */
export const INTEL_OPERATIONS = [
  op({
    id: 'domain',
    method: 'POST',
    path: '/v1/domain',
    tag: 'Site and company intelligence',
    summary: 'Domain registration, DNS, backlinks',
    body: DomainBody,
    description:
      'Looks a domain up: a domain or any URL on it, read as its registrable domain (`www.example.co.uk/shop` is `example.co.uk`; an internationalised name is asked for in punycode and answered in both forms). ' +
      '`registration` (from the registry over RDAP): `found`, `created`, `expires`, `updated`, `transferred`, `ageDays`, `expiresInDays`, `registrar`, `status`, `nameservers`, `dnssec`, `registry` and the RDAP records read (`sources`). ' +
      '`dns`: `exists` and the A, AAAA, MX, NS and TXT records. `backlinks`: the domains this instance\'s link graph saw linking here, busiest first, up to `backlinkLimit`, with `totalReferringDomains` and `coverage` (how many pages and domains the graph holds: it knows only the pages this instance has read). ' +
      'Each section is switched off by its flag. A section whose source fails is `null` and `errors` says why (`registry_unavailable`, `registry_rate_limited` with `retryAfter` seconds, `registry_timeout`, `registry_unsupported`, `dns_timeout`, `dns_unavailable`, `link_graph_unavailable`, …); the lookup still answers 200. ' +
      'An IP address, a single label, `localhost`, a label over 63 characters, a URL with a user or password, or a special-use or unknown top-level domain is 422; such names are never sent to a registry. ' +
      'Costs 1 credit when at least one section asked for answered; nothing when every one failed.',
  }),
  op({
    id: 'company',
    method: 'POST',
    path: '/v1/company',
    tag: 'Site and company intelligence',
    summary: 'Enrich one company from its website',
    body: CompanyBody,
    description:
      'Reads a company from its own site: the home page, then the about, contact and imprint pages its links (or its sitemap) name, in several languages (`about`, `über-uns`, `a-propos`, `chi-siamo`, `sobre`; `kontakt`, `contacto`; `impressum`, `mentions-legales`, `aviso-legal`, …), at most 10 pages. ' +
      'Answers `name`, `description`, `logo`, `phone`, `address` (`street`, `postalCode`, `locality`, `region`, `country`, `text`), `foundingYear`, `headcount` (`min`, `max`, `text`), `industry`, `linkedin` and `socialProfiles`, each from the Organization or LocalBusiness markup of a page read, else the page\'s meta tags, else what its text states (`sources` names the page of each); with `contacts` (default) also `contacts`: `emails` (including addresses pages hide: `[at]`/`[dot]`, entities, Cloudflare\'s `data-cfemail`, reversed text, data attributes), `phones`, `contactForms` and `socialLinks`, each with the `page` it was found on. ' +
      'A URL on the site and its bare domain are the same company: asked again by the same key within COMPANY_CACHE_HOURS (24 by default) it is answered from the stored answer, `cached: true`, free. `pages` lists the pages read; `warning` names pages that could not be read. ' +
      'A site that does not answer is 502 `site_unreachable`; one that refuses to be read (401, 403, 429, a bot challenge), 502 `site_blocked`. ' +
      'Costs 1 credit per page the site answered (at most 10); a failed call costs nothing.',
  }),
  op({
    id: 'products',
    method: 'POST',
    path: '/v1/products',
    tag: 'Site and company intelligence',
    summary: "List a store's products",
    body: ListingBody,
    description:
      "Lists a store's products, up to `limit`, from the store's own API when it runs one the service reads: Shopify (told by its home page, or by a `/products.json` that answers; paged 250 at a time) or WooCommerce (its Store API, told by the `wc/store` namespace of its REST API; 100 a page, prices given in minor units made numbers). Otherwise the product pages its sitemaps and home page name, read for their Product markup (at most 100 pages). " +
      'Each product: `title`, `link`, `image`, `sku`, `price` and `compareAtPrice` (numbers in the major unit, never strings or minor units), `currency` (ISO 4217), `available`, `stock` (units, when the store says), `vendor` and `variants` (each with `title`, `sku`, `price`, `compareAtPrice`, `available`, `stock`, `options`). `platform` says where they came from; `truncated` that the store may have more. ' +
      'A closed store (its password page) is 403 `site_password_protected`; a site that sells nothing the service can read, 404 `no_products_found`. ' +
      'Costs 1 credit per page the site answered (an API page of up to 250 products is one), at most 10 plus one per product asked for and never more than 120; a failed call costs nothing.',
  }),
  op({
    id: 'posts',
    method: 'POST',
    path: '/v1/posts',
    tag: 'Site and company intelligence',
    summary: "List a blog or forum's posts, newest first",
    body: ListingBody,
    description:
      "Lists a blog's or forum's posts, newest first, up to `limit`: WordPress's posts API when the site runs WordPress (100 a page), its feeds (RSS, Atom, JSON Feed named by `<link rel=alternate>`, else found at the usual places) and its forum software's (Discourse, phpBB, XenForo, vBulletin, MyBB); only when none of these gives a post, the post pages its sitemaps name, read for their Article markup (at most 100 pages). Posts are merged across sources by canonical URL. " +
      'Each post: `title`, `link`, `author`, `published` and `updated` (ISO 8601), `summary` (plain text, at most 500 characters) and `source`. `platform` names the software when known, `sources` what was read. ' +
      'A site with none of these is 404 `no_posts_found`. ' +
      'Costs 1 credit per page the site answered (an API page of up to 100 posts, a feed), at most 10 plus one per post asked for and never more than 120; a failed call costs nothing.',
  }),
  op({
    id: 'domainReport',
    method: 'POST',
    path: '/v1/domain/report',
    tag: 'Site and company intelligence',
    summary: "Buyer's report on a domain",
    body: DomainReportBody,
    description:
      'A buyer\'s report: `findings`, `concerns` (each with its `rule` and `severity`) and `questions` for the seller, each pointing at its `evidence` (a registry record, a DNS record, today\'s home page, an archived snapshot, a linking page). ' +
      'Depths are cumulative: `quick` reads registration, DNS, mail records (MX, SPF, DMARC) and today\'s home page; `buyer` adds the archive history (one snapshot a year from the Wayback Machine, `snapshots` of them, 6 by default), the known backlinks and a check that `verifyLinks` linking pages (20 by default) still link; `deep` reads 12 snapshots and 50 linking pages. ' +
      'Snapshots and linking pages are read within the report\'s time budget (DOMAIN_REPORT_BUDGET_MS); years not loaded by then are listed in `evidence.history.pending`, to load with POST /v1/domain/history/snapshots. A source that fails leaves its evidence `null` with an entry in `errors`; the report still answers. ' +
      'Concern rules: `recent_transfer` (transferred within 90 days), `expiring_soon` (within 60 days, or expired), `pending_deletion`, `registry_hold`, `parked_or_for_sale`, `spam_history`, `mail_records_missing`, `owner_changed`, `registration_after_history`, `links_gone` (docs/api/intelligence.md). ' +
      'Charged one flat price per depth (quick 2, buyer 25, deep 60 credits) including 0, 6 or 12 snapshots; each snapshot read beyond those is 1 credit more, charged when it is read; a snapshot this key loaded before is free. A failed report, or one none of whose sources answered, is not charged.',
  }),
  op({
    id: 'domainSnapshots',
    method: 'POST',
    path: '/v1/domain/history/snapshots',
    tag: 'Site and company intelligence',
    summary: 'Load pending archived snapshots',
    body: SnapshotsBody,
    description:
      'Loads the archived snapshots a report left pending: the years the key\'s newest report on the domain planned for `snapshots` (the figure the report used), or only `years`. Years still not loaded when the call returns stay in `pending`; call again. ' +
      'The answer lists each snapshot with its `charge` (`stored`: loaded before, free; `included`: in the report\'s price, free for 7 days after it; `loaded`: 1 credit), the years with no archived capture (`unavailable`), those the archive could not serve (`failed`), and the history `concerns` over every snapshot the key now holds. ' +
      'A domain this key has no report on is 404 `not_found`. A failed call is not charged.',
  }),
  op({
    id: 'domainScreen',
    method: 'POST',
    path: '/v1/domain/screen',
    tag: 'Site and company intelligence',
    summary: 'Screen up to 500 domain names for availability',
    body: DomainScreenBody,
    description:
      'Screens up to 500 names (domains or URLs on them) in parallel, each registry asked within its own limit. Each result has the `input`, the `domain` checked and its `status`: `registered` (the registry holds a record; with `expires`), `likely_available` (no registry record and no delegation or address in DNS), `no_registry_record` (no record, and DNS not asked with `dns: false`, or still answering: `dns: "resolves"`), `unknown` (the registry did not answer: `error` says why) or `invalid` (not a domain name: `reason`). ' +
      'A name given twice is checked once; its later copies carry `duplicate: true`. `counts` totals each status. ' +
      'Charged 1 credit per distinct name the registry answered for; invalid names, duplicates and names the registry did not answer for are free.',
  }),
] as const satisfies readonly Operation[];
