/**
 * How far to trust a filled answer, 0 to 1 (`metadata.jsonConfidence`), from where each
 * top-level field came from and how much of the schema was filled:
 *
 *     confidence = Σ w·s / Σ w        over the schema's top-level fields, rounded to 2 decimals
 *
 *   w = 2 for a field the schema requires, 1 otherwise;
 *   s = 1.0 from the page's structured markup (JSON-LD, microdata, RDFa, meta tags),
 *       0.75 from the page rules (what the visible page says),
 *       0.6 from a model,
 *       0 when the field is empty.
 *
 * 0 when the schema declares no fields or nothing was filled. So an answer read entirely from
 * markup scores 1; markup and page rules together score between 0.75 and 1; the page rules
 * alone 0.75; a model alone 0.6; half the fields missing at most 0.5.
 */
import { topFields } from './json-schema.js';
import type { FieldSource } from './types.js';

export const SOURCE_SCORE: Readonly<Record<FieldSource, number>> = { markup: 1, page: 0.75, model: 0.6 };
export const REQUIRED_WEIGHT = 2;

export function confidenceOf(schema: Record<string, unknown>, filled: { readonly sources: Readonly<Record<string, FieldSource>>; readonly missing: readonly string[] }): number {
  const fields = topFields(schema);
  let total = 0;
  let score = 0;
  for (const field of fields) {
    const weight = field.required ? REQUIRED_WEIGHT : 1;
    total += weight;
    const source = Object.hasOwn(filled.sources, field.name) && !filled.missing.includes(field.name) ? filled.sources[field.name] : undefined;
    score += source ? weight * (SOURCE_SCORE[source] ?? 0) : 0;
  }
  if (total === 0 || score === 0) return 0;
  return Math.round((score / total) * 100) / 100;
}
