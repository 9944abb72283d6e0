/**
 * schemas/api/prices.ts against the contract: each price quotes the spec's charging rule it
 * implements (the rule's text holds the quote, and a figure the quote states is the price),
 * and a price the spec leaves to the service is the one the operation's description states.
 */
import { describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../schemas/api/operations.js';
import { PRICES, SOURCE_CREDITS, type Price, type PriceName } from '../../schemas/api/prices.js';
import { readSpec, SPEC_PATH } from './spec.js';

const spec = readSpec();

/** The spec's "### Charging rules", by number. */
function chargingRules(text: string): Map<number, string> {
  const section = text.split(/^### Charging rules\s*$/m)[1]?.split(/^#{1,3} /m)[0] ?? '';
  return new Map([...section.matchAll(/^(\d+)\. (.+)$/gm)].map((m) => [Number(m[1]), m[2] as string]));
}

/** The figure a quote states, if any: "costs N credit(s)", "from N credit(s)", "is free". */
function figureOf(quote: string): number | null {
  const credits = /\b(?:costs|from) (\d+) credits?\b/.exec(quote);
  if (credits) return Number(credits[1]);
  return /\bis free\b/.test(quote) ? 0 : null;
}

const ENTRIES = Object.entries(PRICES) as [PriceName, Price][];

describe('schemas/api/prices', () => {
  it('gives every price a whole number of credits, and a quote exactly when it names a rule', () => {
    for (const [name, price] of ENTRIES) {
      expect(Number.isInteger(price.credits) && price.credits >= 0, name).toBe(true);
      expect(price.says === null, `${name}: a rule and its quote go together`).toBe(price.rule === null);
    }
    expect(SOURCE_CREDITS).toEqual({ fresh: PRICES.freshPage.credits, cache: PRICES.cachedPage.credits, index: PRICES.indexPage.credits });
  });

  it('states the prices the spec leaves to the service in the operations\' descriptions', () => {
    // An operation whose description states its cost: the price it is charged.
    const described: Partial<Record<string, PriceName>> = { map: 'map', parse: 'parsedFile', fetch: 'freshPage', extract: 'operatorModelPage', search: 'searchCall', serp: 'searchCall', placesSearch: 'placesCall', watchTestUnsaved: 'mentionCollection', socialRun: 'socialCall', domain: 'domainLookup', company: 'sitePage', products: 'sitePage', posts: 'sitePage', leadsStart: 'lead' };
    for (const op of OPERATIONS) {
      const stated = /\bCosts (\d+) credits?\b/.exec(op.description ?? '');
      const name = described[op.id];
      if (!stated) {
        expect(name, `${op.id}: its price is in the table but its description states none`).toBeUndefined();
        continue;
      }
      expect(name, `${op.id}: its description states a cost; name its price here`).toBeDefined();
      expect(Number(stated[1]), op.id).toBe(PRICES[name as PriceName].credits);
    }
    for (const [name, price] of ENTRIES) {
      if (price.rule === null) expect(Object.values(described), `${name}: no spec rule, so an operation's description states it`).toContain(name);
    }
  });

  describe.skipIf(!spec)(`against the spec's charging rules (needs ${SPEC_PATH})`, () => {
    const rules = chargingRules(spec ?? '');

    it('reads the eleven rules', () => {
      expect([...rules.keys()]).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    });

    it.each(ENTRIES.filter(([, p]) => p.rule !== null))('%s quotes its rule, and any figure the quote states is its price', (name, price) => {
      const rule = rules.get(price.rule as number);
      expect(rule, `${name}: rule ${price.rule}`).toBeDefined();
      expect(rule, `${name}: rule ${price.rule} says "${price.says}"`).toContain(price.says);
      const figure = figureOf(price.says as string);
      if (figure !== null) expect(price.credits, `${name}: "${price.says}"`).toBe(figure);
    });
  });
});
