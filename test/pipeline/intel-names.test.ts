import { describe, expect, it } from 'vitest';
import { readDomainName, type NameProblem } from '../../pipeline/intel/names.js';
import { dnsServersOf, rdapBootstrapOf } from '../../pipeline/intel/settings.js';
import { loadConfig } from '../../pipeline/service/config.js';

const domainOf = (input: string) => {
  const read = readDomainName(input);
  if (!read.ok) throw new Error(`${input}: ${read.problem} ${read.message}`);
  return read.name;
};
const problemOf = (input: string): NameProblem | null => {
  const read = readDomainName(input);
  return read.ok ? null : read.problem;
};

describe('pipeline/intel/names', () => {
  it('makes a URL and its bare domain the same request', () => {
    for (const input of ['example.com', 'EXAMPLE.com.', ' example.com ', 'https://example.com', 'http://example.com/shop?q=1#top', 'example.com/shop', 'example.com:8080', '//example.com/x', 'HTTPS://Example.Com:443/']) {
      expect(domainOf(input).domain, input).toBe('example.com');
    }
  });

  it('takes the registrable domain of a subdomain, public-suffix aware, and keeps the host it was given', () => {
    expect(domainOf('https://blog.shop.example.co.uk/x')).toEqual({ domain: 'example.co.uk', host: 'blog.shop.example.co.uk', unicode: 'example.co.uk' });
    expect(domainOf('www.example.com').domain).toBe('example.com');
    // Private suffixes are not registries: the registry holds github.io.
    expect(domainOf('someone.github.io').domain).toBe('github.io');
  });

  it('turns an internationalised name into punycode, and gives its Unicode form', () => {
    expect(domainOf('Bücher.de')).toEqual({ domain: 'xn--bcher-kva.de', host: 'xn--bcher-kva.de', unicode: 'bücher.de' });
    expect(domainOf('https://www.bücher.de/katalog').domain).toBe('xn--bcher-kva.de');
    expect(domainOf('xn--bcher-kva.de').unicode).toBe('bücher.de');
  });

  it.each<[string, NameProblem]>([
    ['', 'not_a_name'],
    ['   ', 'not_a_name'],
    ['exa mple.com', 'not_a_name'],
    ['a..b.com', 'not_a_name'],
    ['ftp://example.com', 'unsupported_scheme'],
    ['mailto://x@example.com', 'unsupported_scheme'],
    ['https://user:pw@example.com/', 'credentials'],
    ['https://user@example.com/', 'credentials'],
    ['127.0.0.1', 'ip_address'],
    ['http://0x7f.1/', 'ip_address'],
    ['http://[::1]:8080/', 'ip_address'],
    ['8.8.8.8', 'ip_address'],
    ['localhost', 'local_name'],
    ['http://localhost:3000', 'local_name'],
    ['app.localhost', 'local_name'],
    ['intranet', 'single_label'],
    [`${'a'.repeat(64)}.com`, 'label_too_long'],
    [`${'abcdefghi.'.repeat(26)}com`, 'name_too_long'],
    ['under_score.com', 'bad_characters'],
    ['-lead.com', 'bad_characters'],
    ['trail-.com', 'bad_characters'],
    ['co.uk', 'public_suffix'],
    ['com', 'single_label'],
    ['foo.test', 'reserved_tld'],
    ['shop.example', 'reserved_tld'],
    ['x.invalid', 'reserved_tld'],
    ['printer.local', 'reserved_tld'],
    ['abc.onion', 'reserved_tld'],
    ['nas.home.arpa', 'reserved_tld'],
    ['db.internal', 'reserved_tld'],
    ['wiki.corp', 'unknown_tld'],
    ['router.lan', 'unknown_tld'],
  ])('refuses %j: %s', (input, problem) => {
    expect(problemOf(input)).toBe(problem);
    const read = readDomainName(input);
    expect(read.ok ? '' : read.message).not.toBe('');
  });

  it('reads a long hostile input in linear time', () => {
    // Half a million characters each: a pass quadratic in the length (a backtracking pattern,
    // a rescan per label) takes minutes over one, so the test's own timeout is the bound.
    const hostile = [`${'a.'.repeat(250_000)}com`, `${'-'.repeat(500_000)}.com`, `http://${'x'.repeat(500_000)}`, `${'a'.repeat(60)}.`.repeat(8_200), `a${'.'.repeat(500_000)}a.com`];
    for (const input of hostile) expect(problemOf(input), `${input.slice(0, 12)}… (${input.length} characters)`).toBe('name_too_long');
  });
});

describe('pipeline/intel/settings', () => {
  it('reads DNS_SERVERS as IP addresses with optional ports, and refuses anything else at start', () => {
    expect(dnsServersOf({ dnsServers: null })).toBeNull();
    expect(dnsServersOf({ dnsServers: ' ' })).toBeNull();
    expect(dnsServersOf({ dnsServers: '127.0.0.1:5353, 1.1.1.1,[::1]:53,2606:4700::1111' })).toEqual(['127.0.0.1:5353', '1.1.1.1', '[::1]:53', '2606:4700::1111']);
    for (const bad of ['dns.google', '1.1.1.1:0', '1.1.1.1:99999', '[::1]', '::1:53x', '1.1.1.1,', '[::1]x53']) {
      expect(() => dnsServersOf({ dnsServers: bad }), bad).toThrow(/DNS_SERVERS/);
    }
    // The configuration refuses it as it loads: the process stops before it starts anything.
    expect(() => loadConfig({ DNS_SERVERS: '127.0.0.1:53,resolver.example' })).toThrow(/DNS_SERVERS: entry 2/);
    expect(loadConfig({ DNS_SERVERS: '127.0.0.1:5353' }).dnsServers).toBe('127.0.0.1:5353');
  });

  it('reads RDAP_BOOTSTRAP_URL `off` as the shipped snapshot only', () => {
    expect(rdapBootstrapOf({ rdapBootstrapUrl: 'off' })).toBeNull();
    expect(rdapBootstrapOf({ rdapBootstrapUrl: 'http://127.0.0.1:9/dns.json' })).toBe('http://127.0.0.1:9/dns.json');
  });
});
