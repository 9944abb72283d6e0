/**
 * Reading values out of the markup's things (pipeline/structured/types.ts `Thing`): the first
 * text of a property, a nested thing, a URL, a number. Shared by the company, product and
 * post readers.
 */
import type { Thing, ThingValue } from '../../structured/types.js';

export const values = (thing: Thing | null | undefined, prop: string): readonly ThingValue[] => thing?.props[prop] ?? [];

/** The first text (or number, as text) of `prop`; a nested thing's `name` (or `url`, `@value`) when that is what it holds. */
export function textOf(thing: Thing | null | undefined, prop: string, depth = 0): string | null {
  for (const v of values(thing, prop)) {
    if (typeof v === 'string' && v.trim()) return v.trim();
    if (typeof v === 'number') return String(v);
    if (typeof v === 'object' && depth < 3) {
      const inner = textOf(v, 'name', depth + 1) ?? textOf(v, 'url', depth + 1) ?? textOf(v, 'contentUrl', depth + 1);
      if (inner) return inner;
    }
  }
  return null;
}

/** The first nested thing of `prop`. */
export function thingOf(thing: Thing | null | undefined, prop: string): Thing | null {
  for (const v of values(thing, prop)) if (typeof v === 'object') return v;
  return null;
}

/** Every nested thing of `prop`. */
export function thingsOf(thing: Thing | null | undefined, prop: string): Thing[] {
  return values(thing, prop).filter((v): v is Thing => typeof v === 'object');
}

/** Every text of `prop` (a nested thing's url or name). */
export function textsOf(thing: Thing | null | undefined, prop: string): string[] {
  const out: string[] = [];
  for (const v of values(thing, prop)) {
    const t = typeof v === 'string' ? v.trim() : typeof v === 'object' ? (textOf(v, 'url') ?? textOf(v, 'name')) : typeof v === 'number' ? String(v) : null;
    if (t) out.push(t);
  }
  return out;
}

/** A number from a property written as a number or as text (`"19.99"`, `"1,299.00"`, `"19,99"`); null when it reads as none. */
export function numberOf(thing: Thing | null | undefined, prop: string): number | null {
  for (const v of values(thing, prop)) {
    if (typeof v === 'number' && Number.isFinite(v)) return v;
    if (typeof v === 'string') {
      const n = parseAmount(v);
      if (n !== null) return n;
    }
  }
  return null;
}

/**
 * An amount written as text, as a number: `19.99`, `1,299.00`, `1.299,00`, `19,99`, `€ 19`.
 * The last `.` or `,` followed by exactly one or two digits is the decimal mark; other marks are
 * thousands separators. Null when no digits or more than one number.
 */
export function parseAmount(raw: string): number | null {
  const t = raw.trim();
  if (!t || t.length > 40) return null;
  let digits = '';
  let lastMark = -1;
  let started = false;
  for (let i = 0; i < t.length; i += 1) {
    const c = t[i] as string;
    if (c >= '0' && c <= '9') {
      digits += c;
      started = true;
    } else if ((c === '.' || c === ',') && started) {
      lastMark = digits.length;
      digits += c;
    } else if (c === ' ' || c === '\u00a0' || c === '\'') {
      if (started && /\d/.test(t[i + 1] ?? '')) continue;
      if (started) break;
    } else if (started) break;
  }
  if (!started) return null;
  const decimals = lastMark >= 0 ? digits.length - lastMark - 1 : 0;
  const intPart = (lastMark >= 0 && decimals <= 2 ? digits.slice(0, lastMark) : digits).replace(/[.,]/g, '');
  const fraction = lastMark >= 0 && decimals <= 2 ? digits.slice(lastMark + 1) : '';
  const n = Number(`${intPart || '0'}${fraction ? `.${fraction}` : ''}`);
  return Number.isFinite(n) ? n : null;
}
