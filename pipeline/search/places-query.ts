/**
 * The Overpass QL of a places search (places.ts sends it; pipeline/clients/overpass.ts speaks
 * the protocol).
 *
 * - A category's selectors become tag filters: one value `["key"="value"]`, several an
 *   anchored alternation `["key"~"^(a|b)$"]`, a list key (`cuisine`) one of its `;` items.
 * - Any other WHAT is searched by name: `nwr["name"~"<text>",i]`, the text a literal (every
 *   POSIX ERE metacharacter escaped, then written as a QL string, at most 100 characters).
 * - The scope is an area (`area(id)->.a;` … `(area.a)`) or a circle (`around:r,lat,lon`).
 * - The query asks `out center tags` for at most 3 × `limit` elements (at least 30, at most
 *   300): unnamed ones (parking lots, benches) are skipped later, and a cap keeps answers
 *   small. The server timeout is what is left of ours, at most 25 s.
 */
import { LIST_KEYS, type PlaceCategory, type TagFilter } from './places-vocabulary.js';

export type PlaceMatch = { readonly by: 'category'; readonly category: PlaceCategory } | { readonly by: 'name'; readonly text: string };

export type SearchScope =
  | { readonly kind: 'area'; readonly areaId: number }
  | { readonly kind: 'around'; readonly radiusM: number; readonly lat: number; readonly lon: number };

const MAX_NAME_CHARS = 100;
const MAX_SERVER_TIMEOUT_S = 25;

/** Metacharacters of POSIX extended regular expressions (Overpass's `~`). */
const ERE_SPECIAL = new Set([...'\\^$.|?*+()[]{}']);

/** `text` as an ERE matching exactly itself. */
function literalPattern(text: string): string {
  return [...text].map((ch) => (ERE_SPECIAL.has(ch) ? `\\${ch}` : ch)).join('');
}

/** `text` as an Overpass QL string literal: in double quotes, `\` and `"` escaped. */
function qlString(text: string): string {
  return `"${text.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;
}

/** The name to search for: control characters out, spaces collapsed, at most 100 characters. */
export function nameText(what: string): string {
  const printable = [...what].map((ch) => (ch < ' ' || ch === '\u007f' ? ' ' : ch)).join('');
  return [...printable.trim().replace(/\s+/g, ' ')].slice(0, MAX_NAME_CHARS).join('').trim();
}

function filterQl(filter: TagFilter): string {
  const [only] = filter.values;
  if (!LIST_KEYS.has(filter.key) && filter.values.length === 1 && only !== undefined) return `[${qlString(filter.key)}=${qlString(only)}]`;
  const choice = `(${filter.values.map(literalPattern).join('|')})`;
  const pattern = LIST_KEYS.has(filter.key) ? `(^|;) *${choice} *(;|$)` : `^${choice}$`;
  return `[${qlString(filter.key)}~${qlString(pattern)}]`;
}

function selectorsQl(match: PlaceMatch): string[] {
  if (match.by === 'name') return [`["name"~${qlString(literalPattern(match.text))},i]`];
  return match.category.selectors.map((selector) => selector.map(filterQl).join(''));
}

/** How each filter reads in the answer's `tags`: `amenity=cafe`, `amenity=restaurant|fast_food + cuisine=pizza`. */
export function tagsOf(match: PlaceMatch): string[] {
  if (match.by === 'name') return [`name~${match.text}`];
  return match.category.selectors.map((selector) => selector.map((f) => `${f.key}=${f.values.join('|')}`).join(' + '));
}

/** The Overpass QL of one search: JSON, a server timeout, the scope, the union, `out center tags`. */
export function overpassQuery(match: PlaceMatch, scope: SearchScope, options: { readonly timeoutS: number; readonly maxElements: number }): string {
  const timeoutS = Math.min(MAX_SERVER_TIMEOUT_S, Math.max(1, Math.floor(options.timeoutS)));
  const within = scope.kind === 'area' ? '(area.a)' : `(around:${Math.round(scope.radiusM)},${scope.lat.toFixed(6)},${scope.lon.toFixed(6)})`;
  const lines = [`[out:json][timeout:${timeoutS}];`];
  if (scope.kind === 'area') lines.push(`area(${scope.areaId})->.a;`);
  lines.push('(', ...selectorsQl(match).map((filters) => `  nwr${filters}${within};`), ');', `out center tags ${options.maxElements};`);
  return lines.join('\n');
}

/** Elements asked for: room for unnamed ones, small answers. */
export function maxElementsFor(limit: number): number {
  return Math.min(300, Math.max(30, limit * 3));
}
