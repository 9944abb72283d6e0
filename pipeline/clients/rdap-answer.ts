/**
 * Reading an RDAP domain answer (RFC 9083) into the fields domain intelligence uses, every
 * field checked before use (a registry's answer is outside input):
 *
 * - `events`: `registration`, `expiration`, `last changed` and `transfer` (the latest of each
 *   kind when a server repeats one), as ISO 8601; a date that does not read as one is null.
 * - `status` lower-cased, `nameservers[].ldhName` lower-cased without a trailing dot, both
 *   deduplicated and capped (MAX_LIST).
 * - The registrar: the first top-level entity whose `roles` holds `registrar`; its name is the
 *   jCard `fn` of `vcardArray`, its IANA id the `publicIds` entry of type `IANA Registrar ID`
 *   (else the entity's `handle` when it is a number), its URL the jCard `url` or a `links`
 *   entry with rel `about`.
 * - `secureDNS.delegationSigned` when it is a boolean.
 * - `relatedLink`: a thin registry's pointer to the registrar's own record, a `links` entry
 *   with rel `related` and type `application/rdap+json` (or no type and a `/domain/` path).
 * - `mergeRecords`: the registry's record completed by the registrar's: the registrar's own
 *   record wins for the registrar's fields; dates, status and nameservers come from the
 *   registry, the registrar's filling only what the registry left out.
 */
import { isoDate, list, record, text, type JsonObject } from './json-shapes.js';

export interface RdapRegistrar {
  readonly name: string | null;
  readonly ianaId: string | null;
  readonly url: string | null;
}

export interface RdapDomain {
  readonly ldhName: string;
  readonly unicodeName: string | null;
  readonly handle: string | null;
  readonly registered: string | null;
  readonly expires: string | null;
  readonly lastChanged: string | null;
  readonly transferred: string | null;
  readonly status: readonly string[];
  readonly nameservers: readonly string[];
  readonly registrar: RdapRegistrar | null;
  readonly secureDns: boolean | null;
  /** RDAP URLs read: the registry's, then the registrar's `related` one. */
  readonly sources: readonly string[];
}

/** Most status values, nameservers, entities and events read from one answer. */
export const MAX_LIST = 50;
const MAX_TEXT = 255;

const EVENT_FIELDS = {
  registration: 'registered',
  expiration: 'expires',
  'last changed': 'lastChanged',
  transfer: 'transferred',
} as const;

type EventField = (typeof EVENT_FIELDS)[keyof typeof EVENT_FIELDS];

/** A short text: trimmed, at most MAX_TEXT characters; null when blank or not a string. */
function short(v: unknown): string | null {
  const value = text(v);
  return value ? value.slice(0, MAX_TEXT) : null;
}

/** The answer read as a domain; null when it is not an object that names a domain. */
export function domainOf(json: unknown, requested: string, source: string): RdapDomain | null {
  const body = record(json);
  if (!body) return null;
  const objectClass = text(body.objectClassName);
  if (objectClass !== null && objectClass !== 'domain') return null;
  const ldhName = short(body.ldhName)?.toLowerCase().replace(/\.$/, '') ?? requested;
  return {
    ldhName,
    unicodeName: short(body.unicodeName),
    handle: short(body.handle),
    ...eventsOf(body.events),
    status: distinct(list(body.status).map((s) => short(s)?.toLowerCase() ?? null)),
    nameservers: distinct(list(body.nameservers).map((ns) => short(record(ns)?.ldhName)?.toLowerCase().replace(/\.$/, '') ?? null)),
    registrar: registrarOf(body.entities),
    secureDns: secureDnsOf(body.secureDNS),
    sources: [source],
  };
}

function eventsOf(events: unknown): Record<EventField, string | null> {
  const out: Record<EventField, string | null> = { registered: null, expires: null, lastChanged: null, transferred: null };
  for (const item of list(events).slice(0, MAX_LIST)) {
    const event = record(item);
    const action = text(event?.eventAction)?.toLowerCase() ?? '';
    if (!Object.hasOwn(EVENT_FIELDS, action)) continue;
    const field = EVENT_FIELDS[action as keyof typeof EVENT_FIELDS];
    const date = instant(event?.eventDate);
    const current = out[field];
    if (date && (current === null || Date.parse(date) > Date.parse(current))) out[field] = date;
  }
  return out;
}

/** An ISO 8601 date or instant, normalised; null when it does not read as one. */
function instant(v: unknown): string | null {
  const raw = short(v);
  return raw ? isoDate(raw) : null;
}

function distinct(values: readonly (string | null)[]): string[] {
  const seen = new Set<string>();
  for (const v of values) {
    if (seen.size >= MAX_LIST) break;
    if (v) seen.add(v);
  }
  return [...seen];
}

function secureDnsOf(v: unknown): boolean | null {
  const signed = record(v)?.delegationSigned;
  return typeof signed === 'boolean' ? signed : null;
}

function registrarOf(entities: unknown): RdapRegistrar | null {
  const entity = list(entities)
    .slice(0, MAX_LIST)
    .map(record)
    .find((e): e is JsonObject => e !== null && list(e.roles).some((r) => text(r)?.toLowerCase() === 'registrar'));
  if (!entity) return null;
  const card = vcardOf(entity.vcardArray);
  const publicId = list(entity.publicIds)
    .slice(0, MAX_LIST)
    .map(record)
    .find((p) => text(p?.type)?.toLowerCase() === 'iana registrar id');
  const handle = short(entity.handle);
  const ianaId = short(publicId?.identifier) ?? (handle && /^\d{1,10}$/.test(handle) ? handle : null);
  const registrar = { name: card.get('fn') ?? null, ianaId, url: webUrl(card.get('url')) ?? aboutLink(entity.links) };
  return registrar.name || registrar.ianaId || registrar.url ? registrar : null;
}

/** jCard properties (`["vcard", [[name, params, type, value], …]]`) with a text value, first of each name. */
function vcardOf(v: unknown): Map<string, string> {
  const props = new Map<string, string>();
  const [kind, properties] = list(v);
  if (kind !== 'vcard') return props;
  for (const prop of list(properties).slice(0, MAX_LIST)) {
    const [name, , , value] = list(prop);
    const key = text(name)?.toLowerCase();
    const val = short(value);
    if (key && val && !props.has(key)) props.set(key, val);
  }
  return props;
}

function webUrl(v: unknown): string | null {
  const raw = short(v);
  if (!raw) return null;
  try {
    const url = new URL(raw);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null;
  } catch {
    return null;
  }
}

function linksOf(v: unknown): { rel: string; href: string; type: string }[] {
  return list(v)
    .slice(0, MAX_LIST)
    .map(record)
    .map((l) => ({ rel: text(l?.rel)?.toLowerCase() ?? '', href: text(l?.href) ?? '', type: text(l?.type)?.toLowerCase() ?? '' }));
}

function aboutLink(links: unknown): string | null {
  const about = linksOf(links).find((l) => l.rel === 'about');
  return about ? webUrl(about.href) : null;
}

/** The registrar's RDAP record a thin registry points to; null when none, or it points back at `self`. */
export function relatedLink(json: unknown, self: string): string | null {
  for (const link of linksOf(record(json)?.links)) {
    if (link.rel !== 'related') continue;
    const href = webUrl(link.href);
    if (!href || href === self) continue;
    const rdapType = link.type.startsWith('application/rdap+json');
    if (rdapType || (link.type === '' && new URL(href).pathname.includes('/domain/'))) return href;
  }
  return null;
}

/** The registry's record completed by the registrar's (see the header). */
export function mergeRecords(registry: RdapDomain, registrar: RdapDomain): RdapDomain {
  const own = registrar.registrar;
  const theirs = registry.registrar;
  const merged = own || theirs ? { name: own?.name ?? theirs?.name ?? null, ianaId: own?.ianaId ?? theirs?.ianaId ?? null, url: own?.url ?? theirs?.url ?? null } : null;
  return {
    ldhName: registry.ldhName,
    unicodeName: registry.unicodeName ?? registrar.unicodeName,
    handle: registry.handle ?? registrar.handle,
    registered: registry.registered ?? registrar.registered,
    expires: registry.expires ?? registrar.expires,
    lastChanged: registry.lastChanged ?? registrar.lastChanged,
    transferred: registry.transferred ?? registrar.transferred,
    status: registry.status.length > 0 ? registry.status : registrar.status,
    nameservers: registry.nameservers.length > 0 ? registry.nameservers : registrar.nameservers,
    registrar: merged,
    secureDns: registry.secureDns ?? registrar.secureDns,
    sources: [...registry.sources, ...registrar.sources],
  };
}
