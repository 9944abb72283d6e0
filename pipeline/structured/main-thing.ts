/**
 * Which things of a page a target's fields look in (fill.ts, steps 1–3): the main thing —
 * the one with values for the most fields (required ones twice) — then the things that can
 * describe the same subject, then the meta tags; and, for a list of objects nothing else
 * fills, every thing of one type (the type the field's name names, `products` → Product, or
 * else the one whose things fill most of the item's properties), in the syntax that has the
 * most of them.
 */
import { type FieldPlan, callerPlan } from './fields.js';
import { type Json, itemsOf, objectFields, shapeOf } from './json-schema.js';
import { isEmpty, objectsFrom } from './read-thing.js';
import { SOURCE_RANK, type Walked, sameSubject, sourceValues, typeRank } from './things.js';
import type { Thing } from './types.js';
import { checkField } from './validate.js';
import { FURNITURE, TYPE_WORDS, isSubtype, norm } from './vocabulary.js';

/** How many fields (required ones twice) `thing` has values for. */
export function scoreOf(thing: Thing, plans: readonly FieldPlan[]): number {
  let score = 0;
  for (const plan of plans) {
    if (plan.sources.some((s) => sourceValues(thing, s).length > 0)) score += plan.required ? 2 : 1;
  }
  return score;
}

interface Ranked extends Walked {
  readonly score: number;
  readonly typeRank: number;
}

const bySyntax = (a: Ranked, b: Ranked): number => a.typeRank - b.typeRank || SOURCE_RANK[a.thing.source] - SOURCE_RANK[b.thing.source] || a.order - b.order;
const byMain = (a: Ranked, b: Ranked): number => b.score - a.score || a.typeRank - b.typeRank || a.depth - b.depth || SOURCE_RANK[a.thing.source] - SOURCE_RANK[b.thing.source] || a.order - b.order;

const sharesType = (a: Thing, b: Thing): boolean => a.types.some((t) => b.types.some((u) => isSubtype(u, t) || isSubtype(t, u)));
export const isFurniture = (thing: Thing): boolean => thing.types.some((t) => FURNITURE.has(t));

/**
 * The markup things a target's fields look in, in order (fill.ts, steps 1–3): `wanted` is a
 * template's schema.org types, null for a caller's schema.
 */
export function candidates(wanted: readonly string[] | null, plans: readonly FieldPlan[], walked: readonly Walked[]): Thing[] {
  const markup = walked.filter((w) => w.thing.source !== 'page');
  const syntaxes = markup.filter((w) => w.thing.source !== 'meta');
  let ranked: Ranked[];
  if (wanted) {
    ranked = syntaxes
      .map((w) => ({ ...w, score: 0, typeRank: typeRank(w.thing, wanted) }))
      .filter((r) => r.typeRank >= 0)
      .map((r) => ({ ...r, score: scoreOf(r.thing, plans) }));
  } else {
    ranked = syntaxes
      .filter((w) => !isFurniture(w.thing))
      .map((w) => ({ ...w, score: scoreOf(w.thing, plans), typeRank: 0 }))
      .filter((r) => r.score > 0);
  }
  const main = [...ranked].sort(byMain)[0];
  const ordered: Thing[] = [];
  if (main) {
    ordered.push(main.thing);
    const related = ranked.filter((r) => r !== main && sameSubject(main.thing, r.thing) && (wanted !== null || sharesType(main.thing, r.thing)));
    ordered.push(...related.sort(bySyntax).map((r) => r.thing));
  }
  for (const w of markup) if (w.thing.source === 'meta' && w.depth === 0 && !ordered.includes(w.thing)) ordered.push(w.thing);
  return ordered;
}

/** A list-of-objects field from every thing of one type on the page (see the file comment). */
export function listFromPage(plan: FieldPlan, walked: readonly Walked[], root: Json): { value: unknown; thing: Thing; notes: readonly string[] } | null {
  const array = shapeOf(root, plan.node);
  const item = shapeOf(root, itemsOf(array.node) ?? {});
  if (array.kind !== 'array' || item.kind !== 'object') return null;
  const itemPlans = objectFields(root, item.node).map(callerPlan);
  const hint = TYPE_WORDS.get(norm(plan.name));
  const pool = walked.filter((w) => w.thing.source !== 'page' && w.thing.source !== 'meta' && w.thing.types.length > 0 && !isFurniture(w.thing));
  const best = new Map<string, { fill: number; count: number }>();
  for (const w of pool) {
    const type = w.thing.types[0] as string;
    const entry = best.get(type) ?? { fill: 0, count: 0 };
    best.set(type, { fill: Math.max(entry.fill, scoreOf(w.thing, itemPlans)), count: entry.count + 1 });
  }
  const hinted = (type: string) => (hint && isSubtype(type, hint) ? 1 : 0);
  const choice = [...best.entries()]
    .filter(([, e]) => e.fill > 0)
    .sort(([ta, a], [tb, b]) => hinted(tb) - hinted(ta) || b.fill - a.fill || b.count - a.count)[0];
  if (!choice) return null;
  const members = pool.filter((w) => w.thing.types[0] === choice[0]);
  const perSource = new Map<string, number>();
  for (const m of members) perSource.set(m.thing.source, (perSource.get(m.thing.source) ?? 0) + 1);
  const source = [...perSource.entries()].sort(([sa, a], [sb, b]) => b - a || SOURCE_RANK[sa as Thing['source']] - SOURCE_RANK[sb as Thing['source']])[0]?.[0];
  const things = members.filter((m) => m.thing.source === source).map((m) => m.thing);
  const result = objectsFrom(things, item.node, array.node, root, 0);
  if (!result.ok) return null;
  const checked = checkField(root, plan.name, result.value);
  if (!checked.ok || isEmpty(checked.value)) return null;
  return { value: checked.value, thing: things[0] as Thing, notes: checked.warnings };
}
