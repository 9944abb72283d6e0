/**
 * Which IP addresses an outbound request may reach: only public unicast. Everything else —
 * loopback, RFC 1918 private, link-local, CGNAT, multicast, broadcast, unspecified,
 * reserved, benchmarking and documentation ranges, IPv6 unique-local and site-local, cloud
 * metadata addresses — is refused, and so are IPv6 forms that carry a refused IPv4 inside
 * (IPv4-mapped, IPv4-translated, NAT64, 6to4, Teredo).
 *
 * Ranges come from ipaddr.js (`range()` answers `unicast` only for addresses in none of its
 * special ranges); IPv6 is further limited to global unicast 2000::/3.
 */
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/** Metadata endpoints that sit in otherwise public-looking space, refused by address. */
const METADATA_ADDRESSES: readonly string[] = [
  '169.254.169.254', // AWS, GCP, Azure, OpenStack (also covered by link-local)
  '169.254.170.2', // AWS ECS task metadata
  '100.100.100.200', // Alibaba Cloud (also covered by CGNAT)
  '192.0.0.192', // Oracle Cloud classic
  'fd00:ec2::254', // AWS IPv6 (also covered by unique-local)
];
const METADATA = new Set(METADATA_ADDRESSES.map((a) => ipaddr.parse(a).toNormalizedString()));

const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

/** Parses an address literal (IPv4 dotted quad or IPv6, brackets and zone id tolerated). */
export function parseAddress(text: string): Address | null {
  const bare = text.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  // Strict literals only (node:net isIP): the odd IPv4 spellings (0x7f.1, 017700000001,
  // 2130706433) are rewritten to dotted quads by WHATWG URL parsing before they get here.
  if (isIP(bare) === 0) return null;
  return ipaddr.parse(bare);
}

/** The IPv4 carried in the last 32 bits of an IPv6 address. */
function low32(address: ipaddr.IPv6): ipaddr.IPv4 {
  const p = address.parts;
  const hi = p[6] ?? 0;
  const lo = p[7] ?? 0;
  return new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
}

/** IPv4 addresses embedded in an IPv6 transition address, or [] when it carries none. */
function embeddedIPv4(address: ipaddr.IPv6, range: string): ipaddr.IPv4[] {
  const p = address.parts;
  switch (range) {
    case 'ipv4Mapped': // ::ffff:a.b.c.d
    case 'rfc6145': // ::ffff:0:a.b.c.d
    case 'rfc6052': // 64:ff9b::a.b.c.d (NAT64)
      return [low32(address)];
    case '6to4': {
      // 2002:AABB:CCDD::/48
      const a = p[1] ?? 0;
      const b = p[2] ?? 0;
      return [new ipaddr.IPv4([a >> 8, a & 0xff, b >> 8, b & 0xff])];
    }
    case 'teredo': {
      // 2001:0:SSSS:SSSS:flags:port:CCCC:CCCC, client address XOR 0xffffffff
      const server = new ipaddr.IPv4([(p[2] ?? 0) >> 8, (p[2] ?? 0) & 0xff, (p[3] ?? 0) >> 8, (p[3] ?? 0) & 0xff]);
      const c = low32(address).octets.map((o) => o ^ 0xff);
      return [server, new ipaddr.IPv4(c)];
    }
    default:
      return [];
  }
}

/**
 * Why `address` may not be reached, or null when it is public unicast. The reason names the
 * range (`loopback`, `private`, `linkLocal`, `metadata`, `ipv4Mapped(loopback)`, …).
 */
export function refusedRange(address: Address | string): string | null {
  const parsed = typeof address === 'string' ? parseAddress(address) : address;
  if (!parsed) return 'invalid';
  if (METADATA.has(parsed.toNormalizedString())) return 'metadata';
  if (parsed.kind() === 'ipv4') {
    const range = parsed.range();
    return range === 'unicast' ? null : range;
  }
  const v6 = parsed as ipaddr.IPv6;
  const range = v6.range();
  const embedded = embeddedIPv4(v6, range);
  if (embedded.length > 0) {
    // NAT64 local-use 64:ff9b:1::/48 (RFC 8215) is a site's own translator: refused outright.
    if (range === 'rfc6052' && v6.parts[2] !== 0) return range;
    for (const v4 of embedded) {
      const inner = refusedRange(v4);
      if (inner) return `${range}(${inner})`;
    }
    return null;
  }
  if (range !== 'unicast') return range;
  if (!v6.match(GLOBAL_UNICAST_V6)) return 'notGlobalUnicast';
  return null;
}

/** A parsed CIDR allow-list entry (`10.1.2.0/24`, `127.0.0.1`, `fd00::/8`). */
export type Cidr = [Address, number];

export function parseCidr(text: string): Cidr {
  if (text.includes('/')) return ipaddr.parseCIDR(text);
  const address = ipaddr.parse(text);
  return [address, address.kind() === 'ipv4' ? 32 : 128];
}

export function inCidrs(address: Address | string, cidrs: readonly Cidr[]): boolean {
  const parsed = typeof address === 'string' ? parseAddress(address) : address;
  if (!parsed) return false;
  const plain = parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress() ? (parsed as ipaddr.IPv6).toIPv4Address() : parsed;
  return cidrs.some(([net, bits]) => net.kind() === plain.kind() && plain.match(net, bits));
}
