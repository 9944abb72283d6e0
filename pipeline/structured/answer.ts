/**
 * Writing extraction into a page's answer, the same from the parser (markup and page rules)
 * and from the extractor (after a model): `json` is the filled object as it passes the
 * target's schema (`conform`: a value that breaks the schema is removed and named, never
 * sent), `metadata.jsonSources` says where each field came from (`markup`, `page`, `model`)
 * and `metadata.jsonConfidence` how far to trust the whole (pipeline/structured/fill.ts
 * `confidenceOf`); `summary` with `metadata.summarySource` (`extractive` or `model`).
 */
import { findTemplate } from '../../schemas/templates.js';
import { confidenceOf, conform, type Filled } from './fill.js';
import type { JsonTarget } from './task.js';

/** The JSON Schema an answer for `target` must pass; null for `prompt` alone (the model's own shape). */
export function schemaOfTarget(target: JsonTarget): Record<string, unknown> | null {
  if (target.kind === 'schema') return target.schema;
  if (target.kind === 'template') return (findTemplate(target.name)?.schema as Record<string, unknown> | undefined) ?? null;
  return null;
}

function metadataOf(document: Record<string, unknown>): Record<string, unknown> {
  const metadata = document.metadata;
  if (metadata && typeof metadata === 'object') return metadata as Record<string, unknown>;
  return (document.metadata = {});
}

/** Writes `filled` as the answer's `json`; returns the warnings to add. */
export function writeJson(document: Record<string, unknown>, target: JsonTarget, filled: Filled): string[] {
  const schema = schemaOfTarget(target);
  const warnings = [...filled.warnings];
  let data = filled.data;
  if (schema) {
    const checked = conform(schema, data);
    data = checked.data;
    warnings.push(...checked.warnings);
  }
  document.json = data;
  const metadata = metadataOf(document);
  const sources = Object.fromEntries(Object.entries(filled.sources).filter(([field]) => field in data));
  metadata.jsonSources = sources;
  metadata.jsonConfidence = schema ? confidenceOf(schema, { sources, missing: filled.missing }) : Object.keys(data).length ? confidenceOf({ type: 'object', properties: Object.fromEntries(Object.keys(data).map((k) => [k, {}])) }, { sources, missing: [] }) : 0;
  return warnings;
}

/** Writes the summary and who made it. */
export function writeSummary(document: Record<string, unknown>, summary: string, source: 'extractive' | 'model'): void {
  document.summary = summary;
  metadataOf(document).summarySource = source;
}

/** Names the model that answered, `provider:name`, in the answer's metadata. */
export function writeModel(document: Record<string, unknown>, model: string): void {
  metadataOf(document).model = model;
}
