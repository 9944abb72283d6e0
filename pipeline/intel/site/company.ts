/**
 * POST /v1/company: who runs a site, read from the site itself.
 *
 * 1. The home page (a site that does not answer it is `site_unreachable`; one that refuses
 *    us, `site_blocked`: errors.ts). A redirect to another host is followed: its host is the
 *    site from then on.
 * 2. The about, contact and imprint pages its links name (company-pages.ts, in several
 *    languages); the kinds the links do not give, from the sitemaps (sitemap.ts). At most two
 *    pages of a kind, COMPANY_MAX_PAGES pages in all, READ_CONCURRENCY at a time.
 * 3. Each field from the surest source that states it: the Organization / LocalBusiness
 *    markup (JSON-LD, microdata, RDFa) of any page read; then the home page's meta tags
 *    (`og:site_name`, `description`); then the pages' text (company-text.ts), the imprint's
 *    first, then the contact page's, the about page's and the home page's.
 * 4. Then, on a service with a model, the fields none of that stated (description, industry,
 *    founding year, headcount, address) from the model over the pages' text, believed only as
 *    far as the pages back them (company-model.ts); listed in `inferred`. A model that fails
 *    leaves them null and says so in `warning`.
 * 5. With `contacts`, every email, phone, contact form and social profile found (contacts.ts),
 *    each with the page it was found on; without, none are listed (the company's main phone,
 *    LinkedIn page and social profiles are part of its details either way).
 *
 * Pages that could not be read are named in `warning`; a page budget spent too.
 */
import { AppError } from '../../runtime/errors.js';
import { mapBounded } from '../../runtime/bounded.js';
import type { Thing } from '../../structured/types.js';
import { addressFromText, foundingYear, headcountFromText, legalName, type CompanyAddress, type Headcount } from './company-text.js';
import { companyModelAsk, INFERABLE, readModelAnswer, type CompanyModelAsk, type InferableField } from './company-model.js';
import { companyPages, kindOfPath, type CompanyPageKind } from './company-pages.js';
import { organizations, pageContacts, type FoundEmail, type FoundForm, type FoundPhone, type FoundSocial, type PageContacts } from './contacts.js';
import { homePage } from './home.js';
import { loadPage, type HtmlPage } from './html.js';
import { COMPANY_MAX_PAGES, MAX_CONTACTS, READ_CONCURRENCY } from './limits.js';
import { budgetWarning, deadlineOf, SiteReader, type ReadPage } from './read.js';
import { onSite, siteOf, type Site } from './site.js';
import { siteSitemaps } from './sitemap.js';
import { distinctPhones, validPhone } from './phones.js';
import { linkedinOf, type SocialProfile } from './socials.js';
import { numberOf, textOf, thingOf } from './things.js';

export type { CompanyAddress, Headcount } from './company-text.js';

export interface CompanyContacts {
  readonly emails: readonly FoundEmail[];
  readonly phones: readonly FoundPhone[];
  readonly contactForms: readonly FoundForm[];
  readonly socialLinks: readonly FoundSocial[];
}

export type CompanyField = 'name' | 'description' | 'logo' | 'phone' | 'address' | 'foundingYear' | 'headcount' | 'industry' | 'linkedin';

export interface CompanyAnswer {
  /** The company's key: the site's registrable domain. */
  readonly domain: string;
  /** The home page read (after redirects). */
  readonly url: string;
  readonly name: string | null;
  readonly description: string | null;
  readonly logo: string | null;
  readonly phone: string | null;
  readonly address: CompanyAddress | null;
  readonly foundingYear: number | null;
  readonly headcount: Headcount | null;
  readonly industry: string | null;
  /** The professional-network (LinkedIn) profile. */
  readonly linkedin: string | null;
  readonly socialProfiles: readonly SocialProfile[];
  /** With `contacts`; null without. */
  readonly contacts: CompanyContacts | null;
  /** The page each stated field was read from. */
  readonly sources: Readonly<Partial<Record<CompanyField, string>>>;
  /** The fields a model read from the pages' text (none stated them in markup or in words the rules know). */
  readonly inferred: readonly InferableField[];
  /** The pages read, by kind. */
  readonly pages: readonly { readonly url: string; readonly kind: 'home' | CompanyPageKind }[];
  /** Pages the site answered (what the call is charged for). */
  readonly pagesRead: number;
  readonly warning: string | null;
}

export interface CompanyOptions {
  readonly contacts: boolean;
  readonly read: ReadPage;
  readonly signal?: AbortSignal;
  /** The clock (epoch ms): a founding year after this year is not believed. */
  readonly now?: () => number;
  /** Pages read at most (default COMPANY_MAX_PAGES). */
  readonly maxPages?: number;
  /** Epoch ms (on `now`) past which no page is asked for. */
  readonly deadlineMs?: number;
  /** The operator's model, when one is configured: answers the ask's schema, or throws. */
  readonly infer?: (ask: CompanyModelAsk) => Promise<Record<string, unknown>>;
  /** The characters of page text the model is given at most (MODEL_MAX_INPUT_CHARS). */
  readonly inferMaxChars?: number;
}

const PER_KIND = 2;
const KIND_ORDER: readonly CompanyPageKind[] = ['imprint', 'contact', 'about'];

interface ReadCompanyPage {
  readonly kind: 'home' | CompanyPageKind;
  readonly page: HtmlPage;
}

/** Sitemaps of pages, not of products, posts or media, are the ones that list about and imprint pages. */
function pageSitemapRank(url: string): number {
  const path = url.toLowerCase();
  if (/product|post|categor|tag|image|video|news|author|collection|blog/.test(path)) return -1;
  return /page/.test(path) ? 2 : 1;
}

async function findPages(site: Site, home: HtmlPage, reader: SiteReader): Promise<{ url: string; kind: CompanyPageKind }[]> {
  const linked = companyPages(home.links.filter((l) => onSite(site, l.href) && l.href !== home.url));
  const chosen: { url: string; kind: CompanyPageKind }[] = [];
  for (const kind of KIND_ORDER) chosen.push(...linked.filter((p) => p.kind === kind).slice(0, PER_KIND));
  const missing = KIND_ORDER.filter((kind) => !chosen.some((p) => p.kind === kind));
  if (missing.length) {
    const entries = await siteSitemaps(site, reader, pageSitemapRank, 2);
    for (const kind of missing) {
      const found = entries.filter((e) => kindOfPath(e.url) === kind && e.url !== home.url).slice(0, PER_KIND);
      chosen.push(...found.map((e) => ({ url: e.url, kind })));
    }
  }
  return chosen;
}

/** Pages in the order their text is believed: imprint, contact, about, home. */
function byTrust(pages: readonly ReadCompanyPage[]): ReadCompanyPage[] {
  const rank = (kind: ReadCompanyPage['kind']) => (kind === 'home' ? 3 : KIND_ORDER.indexOf(kind));
  return [...pages].sort((a, b) => rank(a.kind) - rank(b.kind));
}

function addressOfThing(thing: Thing | null): CompanyAddress | null {
  if (!thing) return null;
  const street = textOf(thing, 'streetAddress');
  const postalCode = textOf(thing, 'postalCode');
  const locality = textOf(thing, 'addressLocality');
  const region = textOf(thing, 'addressRegion');
  const country = textOf(thing, 'addressCountry');
  const parts = [street, [postalCode, locality].filter(Boolean).join(' '), region, country].filter(Boolean);
  return parts.length ? { street, postalCode, locality, region, country, text: parts.join(', ') } : null;
}

function markupAddress(org: Thing): CompanyAddress | null {
  const nested = thingOf(org, 'address') ?? thingOf(thingOf(org, 'location'), 'address');
  if (nested) return addressOfThing(nested);
  const text = textOf(org, 'address');
  return text ? { street: null, postalCode: null, locality: null, region: null, country: null, text } : null;
}

function markupHeadcount(org: Thing): Headcount | null {
  const value = thingOf(org, 'numberOfEmployees');
  if (value) {
    const exact = numberOf(value, 'value');
    const min = numberOf(value, 'minValue') ?? exact;
    const max = numberOf(value, 'maxValue') ?? exact;
    return min !== null || max !== null ? { min, max, text: [min, max].filter((n) => n !== null).join('–') } : null;
  }
  const n = numberOf(org, 'numberOfEmployees');
  return n !== null ? { min: n, max: n, text: String(n) } : null;
}

/** The organization's industry: stated (`industry`, NAICS, ISIC), or its LocalBusiness subtype (`Dentist`, `Bakery`). */
function markupIndustry(org: Thing): string | null {
  const stated = textOf(org, 'industry') ?? textOf(org, 'naics') ?? textOf(org, 'isicV4');
  if (stated) return stated;
  const generic = new Set(['Organization', 'Corporation', 'LocalBusiness', 'Store', 'OnlineStore', 'OnlineBusiness', 'NGO', 'WebSite', 'Brand', 'Place']);
  return org.types.find((t) => !generic.has(t)) ?? null;
}

function logoOf(home: HtmlPage): string | null {
  const $ = home.$;
  const img = $('header img, img').filter((_, el) => /logo/i.test(`${el.attribs.class ?? ''} ${el.attribs.id ?? ''} ${el.attribs.alt ?? ''} ${el.attribs.src ?? ''}`)).first();
  const candidates = [img.attr('src'), $('link[rel~="apple-touch-icon"][href]').first().attr('href'), $('link[rel~="icon"][href]').first().attr('href')];
  for (const c of candidates) {
    if (!c || c.startsWith('data:')) continue;
    try {
      return new URL(c, home.url).href;
    } catch {
      // Next.
    }
  }
  return null;
}

/** `Acme | Home`, `Home - Acme`: the part of the title that is not a page's name. */
function nameFromTitle(title: string | null): string | null {
  if (!title) return null;
  const parts = title.split(/\s+[|–—:·-]\s+/).map((p) => p.trim()).filter(Boolean);
  const generic = /^(home|homepage|startseite|accueil|inicio|welcome|willkommen|bienvenue)$/i;
  const named = parts.filter((p) => !generic.test(p));
  return (named.length > 1 ? named[named.length - 1] : named[0]) ?? null;
}

function gatherContacts(found: readonly PageContacts[]): CompanyContacts {
  const unique = <T>(items: T[], key: (t: T) => string): T[] => {
    const seen = new Set<string>();
    return items.filter((t) => !seen.has(key(t)) && seen.add(key(t)) !== undefined).slice(0, MAX_CONTACTS);
  };
  return {
    emails: unique(found.flatMap((c) => c.emails), (e) => e.email),
    phones: distinctPhones(found.flatMap((c) => c.phones)).slice(0, MAX_CONTACTS),
    contactForms: unique(found.flatMap((c) => c.forms), (f) => f.url),
    socialLinks: unique(found.flatMap((c) => c.socials), (s) => s.url),
  };
}

function warningOf(reader: SiteReader, unread: readonly string[], maxPages: number, modelFailure: string | null): string | null {
  const parts: string[] = [];
  if (modelFailure) parts.push(`the model did not answer (${modelFailure}): the details the pages' markup and wording did not state are left empty`);
  if (unread.length) parts.push(`${unread.length} page(s) could not be read: ${unread.slice(0, 5).join(', ')}`);
  const budget = budgetWarning(reader, maxPages);
  if (budget) parts.push(budget);
  return parts.length ? parts.join('; ') : null;
}

/** Reads the company behind `input` (see the file comment). */
export async function readCompany(input: string, opts: CompanyOptions): Promise<CompanyAnswer> {
  const asked = siteOf(input);
  if (!asked) throw new AppError('validation_failed', `"${input.slice(0, 100)}" is not a domain or an http(s) URL`);
  const maxPages = opts.maxPages ?? COMPANY_MAX_PAGES;
  const reader = new SiteReader({ read: opts.read, maxPages, ...(opts.signal ? { signal: opts.signal } : {}), ...deadlineOf(opts) });
  const { site, page: home } = await homePage(asked, reader, input.includes('/') ? input : undefined);
  const found = await findPages(site, home, reader);
  const unread: string[] = [];
  const others: (ReadCompanyPage | null | undefined)[] = await mapBounded(
    found,
    READ_CONCURRENCY,
    async ({ url, kind }) => {
      const page = await reader.html(url);
      if (!page) {
        unread.push(url);
        return null;
      }
      return { kind, page: loadPage(page.url, page.body) } satisfies ReadCompanyPage;
    },
    opts.signal,
  );
  const pages = byTrust([{ kind: 'home', page: home }, ...others.filter((p): p is ReadCompanyPage => !!p)]);
  const nowYear = new Date((opts.now ?? Date.now)()).getUTCFullYear();
  const sources: Partial<Record<CompanyField, string>> = {};
  const pick = <T>(field: CompanyField, candidates: Iterable<[T | null, string]>): T | null => {
    for (const [value, url] of candidates) {
      if (value !== null && value !== undefined && value !== '') {
        sources[field] = url;
        return value;
      }
    }
    return null;
  };
  const orgs = pages.flatMap(({ page }) => organizations(page.things).map((org) => [org, page.url] as const));
  const fromOrgs = <T>(read: (org: Thing) => T | null) => orgs.map(([org, url]) => [read(org), url] as [T | null, string]);
  const fromText = <T>(read: (text: string) => T | null) => pages.map(({ page }) => [read(page.text), page.url] as [T | null, string]);
  const contacts = pages.map(({ page }) => pageContacts(page, site.domain));
  const all = gatherContacts(contacts);
  const profiles = all.socialLinks.map(({ network, url }) => ({ network, url }));
  const socialProfiles = profiles.filter((p, i) => profiles.findIndex((q) => q.network === p.network) === i);
  const linkedin = linkedinOf(profiles);
  if (linkedin) sources.linkedin = all.socialLinks.find((s) => s.url === linkedin)?.page ?? home.url;
  const answer: CompanyAnswer = {
    domain: asked.domain,
    url: home.url,
    name: pick('name', [...fromOrgs((o) => textOf(o, 'legalName') ?? textOf(o, 'name')), [home.meta('og:site_name'), home.url], ...fromText(legalName), [nameFromTitle(home.title), home.url]]),
    description: pick('description', [...fromOrgs((o) => textOf(o, 'description')), [home.meta('description'), home.url], [home.meta('og:description'), home.url]]),
    logo: pick('logo', [...fromOrgs((o) => textOf(o, 'logo')), [logoOf(home), home.url]]),
    phone: pick('phone', [...fromOrgs((o) => validPhone(textOf(o, 'telephone') ?? '', true)), ...pages.map(({ page }, i) => [contacts[i]?.phones[0]?.phone ?? null, page.url] as [string | null, string])]),
    address: pick('address', [...fromOrgs(markupAddress), ...fromText(addressFromText)]),
    foundingYear: pick('foundingYear', [...fromOrgs((o) => yearOf(textOf(o, 'foundingDate'), nowYear)), ...fromText((t) => foundingYear(t, nowYear))]),
    headcount: pick('headcount', [...fromOrgs(markupHeadcount), ...fromText(headcountFromText)]),
    industry: pick('industry', fromOrgs(markupIndustry)),
    linkedin,
    socialProfiles,
    contacts: opts.contacts ? all : null,
    sources,
    inferred: [],
    pages: pages.map(({ kind, page }) => ({ url: page.url, kind })),
    pagesRead: reader.pagesRead,
    warning: null,
  };
  const inferred = opts.infer ? await inferMissing(answer, pages, opts, nowYear) : { fields: {}, failure: null };
  return { ...answer, ...inferred.fields, warning: warningOf(reader, unread, maxPages, inferred.failure) };
}

/** The model's reading of the fields still empty (see step 4 of the file comment). */
async function inferMissing(
  answer: CompanyAnswer,
  pages: readonly ReadCompanyPage[],
  opts: CompanyOptions,
  nowYear: number,
): Promise<{ fields: Partial<CompanyAnswer>; failure: string | null }> {
  const missing = INFERABLE.filter((field) => answer[field] === null);
  const texts = pages.filter(({ page }) => page.text.trim().length > 0).map(({ kind, page }) => ({ url: page.url, kind, text: page.text }));
  if (!opts.infer || missing.length === 0 || texts.length === 0) return { fields: {}, failure: null };
  let raw: Record<string, unknown>;
  try {
    raw = await opts.infer(companyModelAsk(missing, texts, opts.inferMaxChars ?? 24_000));
  } catch (error) {
    if (opts.signal?.aborted) throw error;
    const code = typeof (error as { code?: unknown }).code === 'string' ? (error as { code: string }).code : 'model_failed';
    return { fields: {}, failure: code };
  }
  const read = readModelAnswer(raw, missing, texts, nowYear);
  const { sources, ...values } = read;
  const fields = Object.keys(sources) as InferableField[];
  return { fields: { ...values, sources: { ...answer.sources, ...sources }, inferred: INFERABLE.filter((f) => fields.includes(f)) }, failure: null };
}

function yearOf(date: string | null, nowYear: number): number | null {
  const year = date ? Number(date.slice(0, 4)) : NaN;
  return year >= 1700 && year <= nowYear ? year : null;
}
