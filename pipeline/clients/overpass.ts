/**
 * The Overpass API (OVERPASS_URL), OpenStreetMap's read-only query service: runs one Overpass
 * QL query with `GET <interpreter>?data=<ql>` (the interpreter takes `data=` by GET as by POST;
 * service-http.ts speaks GET only) and reads its JSON (`[out:json]`). Places search
 * (pipeline/search/places-query.ts) writes the queries.
 *
 * - Elements: `{type: node|way|relation, id, lat?, lon?, center?{lat,lon}, tags?}`; an element
 *   of another type (`area`, `count`) or without a numeric id is left out; tags keep string
 *   values only.
 * - `osm3s.copyright` (the ODbL notice) and `osm3s.timestamp_osm_base` (how fresh the data is)
 *   are passed on.
 * - `remark`: Overpass reports a query that ran out of time or memory with HTTP 200 and a
 *   `remark` (`runtime error: Query timed out in "query" at line 3 after 26 seconds.`). With
 *   no elements that is a failure: `timeout` when it says the query timed out, else
 *   `unavailable`. When elements came back they are kept (possibly incomplete) and the remark
 *   is passed up as a warning, as is any other remark.
 * - 429 means no query slot of ours is free (`rate_limited`); 504 (the server too busy) and
 *   400 (a query it cannot parse, answered as an HTML page) are `unavailable`, as
 *   service-http.ts sorts them. A body without an `elements` list is `unreadable`.
 */
import type { HttpFetcher } from '../runtime/net/http.js';
import { record, text } from './json-shapes.js';
import { getJson, serviceFetcher, ServiceError, shownEndpoint } from './service-http.js';

export const OVERPASS_URL = 'https://overpass-api.de/api/interpreter';

export const OSM_TYPES = ['node', 'way', 'relation'] as const;
export type OsmType = (typeof OSM_TYPES)[number];

export const isOsmType = (v: unknown): v is OsmType => typeof v === 'string' && (OSM_TYPES as readonly string[]).includes(v);

export interface OverpassOptions {
  /** OVERPASS_URL: the interpreter endpoint. */
  readonly url?: string;
  readonly fetcher?: HttpFetcher;
}

export interface OverpassContext {
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
}

export interface LatLon {
  readonly lat: number;
  readonly lon: number;
}

export interface OverpassElement {
  readonly type: OsmType;
  readonly id: number;
  /** A node's position. */
  readonly lat: number | null;
  readonly lon: number | null;
  /** A way's or relation's centre (`out center`). */
  readonly center: LatLon | null;
  readonly tags: Readonly<Record<string, string>>;
}

export interface OverpassAnswer {
  readonly elements: readonly OverpassElement[];
  /** `osm3s.copyright`: the ODbL notice. */
  readonly copyright: string | null;
  /** `osm3s.timestamp_osm_base`: the data's date (ISO 8601). */
  readonly timestampOsmBase: string | null;
  readonly generator: string | null;
  /** Remarks Overpass made about an answer it still gave (a partial result). */
  readonly warnings: readonly string[];
}

const SERVICE = 'overpass';
const MAX_REMARK_CHARS = 300;

export class OverpassClient {
  /** The endpoint answers come from (cache keys of callers include it). */
  readonly endpoint: string;
  private readonly url: URL;
  private readonly fetcher: HttpFetcher;

  constructor(options: OverpassOptions = {}) {
    this.url = new URL(options.url ?? OVERPASS_URL);
    this.endpoint = shownEndpoint(this.url);
    this.fetcher = options.fetcher ?? serviceFetcher();
  }

  async query(ql: string, ctx: OverpassContext): Promise<OverpassAnswer> {
    const url = new URL(this.url.href);
    url.searchParams.set('data', ql);
    const answer = await getJson(SERVICE, { url, timeoutMs: ctx.timeoutMs, signal: ctx.signal }, this.fetcher);
    return answerOf(answer.json, url, answer.status);
  }
}

const finite = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

function answerOf(json: unknown, url: URL, status: number): OverpassAnswer {
  const body = record(json);
  if (!body || !Array.isArray(body.elements)) {
    throw new ServiceError(SERVICE, 'unreadable', `${shownEndpoint(url)} answered JSON without an \`elements\` list`, null, status);
  }
  const elements = body.elements.map(elementOf).filter((e): e is OverpassElement => e !== null);
  const remark = text(body.remark)?.slice(0, MAX_REMARK_CHARS) ?? null;
  if (remark && elements.length === 0 && isFailure(remark)) {
    throw new ServiceError(SERVICE, timedOut(remark) ? 'timeout' : 'unavailable', `the query did not finish: ${remark}`, null, status);
  }
  const osm3s = record(body.osm3s);
  return {
    elements,
    copyright: text(osm3s?.copyright),
    timestampOsmBase: text(osm3s?.timestamp_osm_base),
    generator: text(body.generator),
    warnings: remark ? [`Overpass: ${remark}`] : [],
  };
}

/** `runtime error: …` (time, memory) and the like: the query did not run to its end. */
function isFailure(remark: string): boolean {
  const lower = remark.toLowerCase();
  return lower.includes('error') || timedOut(remark) || lower.includes('out of memory');
}

const timedOut = (remark: string) => /timed out|timeout/i.test(remark);

function elementOf(item: unknown): OverpassElement | null {
  const r = record(item);
  const id = finite(r?.id);
  if (!r || !isOsmType(r.type) || id === null) return null;
  const lat = finite(r.lat);
  const lon = finite(r.lon);
  return {
    type: r.type,
    id,
    lat: lat !== null && lon !== null ? lat : null,
    lon: lat !== null && lon !== null ? lon : null,
    center: centerOf(r.center),
    tags: tagsOf(r.tags),
  };
}

function centerOf(v: unknown): LatLon | null {
  const r = record(v);
  const lat = finite(r?.lat);
  const lon = finite(r?.lon);
  return lat !== null && lon !== null ? { lat, lon } : null;
}

function tagsOf(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(record(v) ?? {})) {
    if (typeof value === 'string') out[key] = value;
  }
  return out;
}
