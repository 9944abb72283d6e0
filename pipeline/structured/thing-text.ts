/**
 * What a nested thing stands for in a text or number field (coerce.ts): a PostalAddress its
 * one line ("street, postal-code locality, region, country"), an ImageObject/VideoObject its
 * `url` (else `contentUrl`), a ListItem or HowToStep its `text` (else `name`, `item`), any
 * other thing its `name` (else `headline`, `text`, `title`, `value`, `url`); as a number its
 * `value`, `price` or `ratingValue` (a MonetaryAmount's QuantitativeValue's `value`). At most
 * 3 levels down.
 */
import { parseNumber, plainText } from './text.js';
import { isThing, propValues } from './things.js';
import type { Thing } from './types.js';
import { isSubtype } from './vocabulary.js';

const MAX_NESTING = 3;

function firstScalar(thing: Thing, prop: string, depth: number): string | null {
  for (const value of propValues(thing, prop)) {
    if (typeof value === 'string' || typeof value === 'number') return plainText(String(value)) || null;
    if (isThing(value) && depth < MAX_NESTING) {
      const text = thingText(value, depth + 1);
      if (text) return text;
    }
  }
  return null;
}

const isAddress = (thing: Thing): boolean =>
  thing.types.includes('PostalAddress') || propValues(thing, 'streetAddress').length > 0 || propValues(thing, 'addressLocality').length > 0;

/** A PostalAddress as one line: "street, postal-code locality, region, country". */
export function addressLine(thing: Thing, depth = 0): string | null {
  const part = (prop: string) => firstScalar(thing, prop, depth) ?? '';
  const locality = [part('postalCode'), part('addressLocality')].filter(Boolean).join(' ');
  const parts = [part('streetAddress'), locality, part('addressRegion'), part('addressCountry')].filter(Boolean);
  return parts.length ? parts.join(', ') : null;
}

/** The text a nested thing stands for in a text field (see the file comment). */
export function thingText(thing: Thing, depth = 0): string | null {
  if (isAddress(thing)) return addressLine(thing, depth) ?? firstScalar(thing, 'name', depth);
  const props = thing.types.some((t) => isSubtype(t, 'MediaObject'))
    ? ['url', 'contentUrl', 'name']
    : thing.types.some((t) => isSubtype(t, 'ListItem'))
      ? ['text', 'name', 'item']
      : ['name', 'headline', 'text', 'title', 'value', 'url'];
  for (const prop of props) {
    const text = firstScalar(thing, prop, depth);
    if (text) return text;
  }
  return null;
}

export function thingNumber(thing: Thing, depth = 0): number | null {
  for (const prop of ['value', 'price', 'ratingValue']) {
    for (const value of propValues(thing, prop)) {
      if (typeof value === 'number') return value;
      if (typeof value === 'string') {
        const n = parseNumber(value);
        if (n !== null) return n;
      }
      if (isThing(value) && depth < MAX_NESTING) {
        const n = thingNumber(value, depth + 1);
        if (n !== null) return n;
      }
    }
  }
  return null;
}
