/**
 * The names bench/domains.ts screens and what the registry and DNS know of them: `count`
 * generated names over .com, .net and .org (a seeded word and the index, so every run asks the
 * same ones), of three kinds in fixed proportions:
 *
 *   registered  5 in 10: a registry record (thin: the registrar's record linked) and a zone
 *               with NS and A records
 *   parked      2 in 10: no registry record, but DNS still answers for it (NS and A)
 *   free        3 in 10: neither: NXDOMAIN
 */
import type { FakeDnsZone } from '../../test/helpers/fake-dns.js';
import type { FakeRdapDomain } from '../../test/helpers/fake-rdap.js';
import { seededRandom } from '../seeded-random.js';

export type NameKind = 'registered' | 'parked' | 'free';

export interface DomainWorld {
  readonly names: readonly string[];
  readonly kinds: ReadonlyMap<string, NameKind>;
  readonly registry: Readonly<Record<string, FakeRdapDomain>>;
  readonly zones: Readonly<Record<string, FakeDnsZone>>;
}

const WORDS = ['harbor', 'maple', 'quartz', 'lumen', 'cobalt', 'fjord', 'saffron', 'tundra', 'orbit', 'willow', 'ember', 'atlas', 'pixel', 'meadow', 'vertex', 'juniper'];
const TLDS = ['com', 'net', 'org'];

export function domainWorld(count: number): DomainWorld {
  const random = seededRandom(29);
  const names: string[] = [];
  const kinds = new Map<string, NameKind>();
  const registry: Record<string, FakeRdapDomain> = {};
  const zones: Record<string, FakeDnsZone> = {};
  for (let i = 0; i < count; i++) {
    const word = WORDS[Math.floor(random() * WORDS.length)] as string;
    const name = `${word}-${i}.${TLDS[i % TLDS.length] as string}`;
    const slot = i % 10;
    const kind: NameKind = slot < 5 ? 'registered' : slot < 7 ? 'parked' : 'free';
    names.push(name);
    kinds.set(name, kind);
    if (kind === 'registered') {
      const year = 1998 + (i % 25);
      registry[name] = {
        registered: `${year}-03-14T10:00:00Z`,
        expires: `${year + 30}-03-14T10:00:00Z`,
        lastChanged: '2026-02-01T08:30:00Z',
        status: ['client transfer prohibited'],
        nameservers: [`ns1.${name}`, `ns2.${name}`],
        registrarOnly: ['expires'],
      };
    }
    if (kind !== 'free') zones[name] = { NS: [`ns1.${name}`, `ns2.${name}`], A: [`198.51.100.${(i % 250) + 1}`] };
  }
  return { names, kinds, registry, zones };
}
