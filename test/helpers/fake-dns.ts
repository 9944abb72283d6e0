/**
 * A local authoritative DNS server on 127.0.0.1 (one free port, UDP and TCP), reading and
 * writing real DNS messages with dns-packet, for pipeline/clients/dns.ts (point DNS_SERVERS
 * at `server`).
 *
 * - `zones`: name → its records (A, AAAA, MX, NS, TXT). A query for a zone's name answers its
 *   records of that type (SOA: one made up for the zone), NOERROR without answers when it has
 *   none of the type; a name below a zone that is not one itself is NOERROR without answers;
 *   any other name is NXDOMAIN. Names are matched lower-case, without the trailing dot.
 * - An answer that does not fit the UDP size the query allows (512 bytes, or its EDNS0 size)
 *   goes back truncated (TC, no answers), so the resolver asks again over TCP, as real servers
 *   make it do. TCP messages carry the 2-byte length prefix (RFC 1035 §4.2.2).
 * - Every answer waits `latencyMs` ([min, max], uniform) first, when set.
 * - Modes (`setMode`): `ok`; `silent` (never answers: the resolver times out); `servfail`
 *   (SERVFAIL); `refused` (REFUSED).
 * - `queries` counts messages received (UDP and TCP), `tcpQueries` those over TCP.
 */
import dgram from 'node:dgram';
import { once } from 'node:events';
import net from 'node:net';
import dnsPacket, { type Answer, type Packet, type Question } from 'dns-packet';

export interface FakeDnsZone {
  readonly A?: readonly string[];
  readonly AAAA?: readonly string[];
  readonly MX?: readonly { readonly exchange: string; readonly priority: number }[];
  readonly NS?: readonly string[];
  readonly TXT?: readonly string[];
}

export type FakeDnsMode = 'ok' | 'silent' | 'servfail' | 'refused';

export interface FakeDnsOptions {
  readonly zones: Readonly<Record<string, FakeDnsZone>>;
  readonly latencyMs?: readonly [number, number];
}

export interface FakeDns {
  /** `127.0.0.1:<port>` (a DNS_SERVERS entry). */
  readonly server: string;
  readonly queries: number;
  readonly tcpQueries: number;
  setMode(mode: FakeDnsMode): void;
  close(): Promise<void>;
}

const RCODE = { NOERROR: 0, SERVFAIL: 2, NXDOMAIN: 3, REFUSED: 5 } as const;
const TTL = 300;

export async function startFakeDns(options: FakeDnsOptions): Promise<FakeDns> {
  const zones = new Map(Object.entries(options.zones).map(([name, zone]) => [plain(name), zone]));
  let mode: FakeDnsMode = 'ok';
  let queries = 0;
  let tcpQueries = 0;
  const timers = new Set<NodeJS.Timeout>();
  const sockets = new Set<net.Socket>();

  /** The answer to `message` after the latency, or nothing (`silent`, undecodable). */
  const respond = (message: Buffer, limit: number | null, reply: (out: Buffer) => void) => {
    let query: Packet;
    try {
      query = dnsPacket.decode(message);
    } catch {
      return;
    }
    if (mode === 'silent') return;
    const out = answerTo(query, zones, mode, limit);
    const wait = delay(options.latencyMs);
    const timer = setTimeout(() => {
      timers.delete(timer);
      reply(out);
    }, wait);
    timers.add(timer);
  };

  const { udp, tcp, port } = await bindBoth();
  udp.on('message', (message, from) => {
    queries++;
    respond(message, null, (out) => udp.send(out, from.port, from.address));
  });
  tcp.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    let pending = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 2 && pending.length >= 2 + pending.readUInt16BE(0)) {
        const size = pending.readUInt16BE(0);
        const message = pending.subarray(2, 2 + size);
        pending = pending.subarray(2 + size);
        queries++;
        tcpQueries++;
        respond(message, Infinity, (out) => {
          if (socket.destroyed) return;
          const length = Buffer.alloc(2);
          length.writeUInt16BE(out.length);
          socket.write(Buffer.concat([length, out]));
        });
      }
    });
  });

  return {
    server: `127.0.0.1:${port}`,
    get queries() {
      return queries;
    },
    get tcpQueries() {
      return tcpQueries;
    },
    setMode: (next) => void (mode = next),
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      for (const socket of sockets) socket.destroy();
      await Promise.all([new Promise<void>((resolve) => udp.close(() => resolve())), new Promise<void>((resolve) => tcp.close(() => resolve()))]);
    },
  };
}

/** A UDP socket and a TCP server on the same free port of 127.0.0.1. */
async function bindBoth(): Promise<{ udp: dgram.Socket; tcp: net.Server; port: number }> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const udp = dgram.createSocket('udp4');
    udp.bind(0, '127.0.0.1');
    await once(udp, 'listening');
    const port = udp.address().port;
    const tcp = net.createServer();
    try {
      tcp.listen(port, '127.0.0.1');
      await once(tcp, 'listening');
      return { udp, tcp, port };
    } catch {
      udp.close();
      tcp.close();
    }
  }
  throw new Error('fake-dns: no port free for both UDP and TCP');
}

function plain(name: string): string {
  return name.toLowerCase().replace(/\.$/, '');
}

function delay(range: readonly [number, number] | undefined): number {
  if (!range) return 0;
  const [min, max] = range;
  return min + Math.random() * (max - min);
}

/** The encoded answer; truncated when it exceeds `limit` (null: the query's own UDP size). */
function answerTo(query: Packet, zones: ReadonlyMap<string, FakeDnsZone>, mode: FakeDnsMode, limit: number | null): Buffer {
  const question = query.questions?.[0];
  const header = (rcode: number, extra = 0) => ({
    id: query.id ?? 0,
    type: 'response' as const,
    flags: dnsPacket.AUTHORITATIVE_ANSWER | ((query.flags ?? 0) & dnsPacket.RECURSION_DESIRED) | rcode | extra,
    questions: query.questions ?? [],
  });
  if (mode === 'servfail') return dnsPacket.encode({ ...header(RCODE.SERVFAIL), answers: [] });
  if (mode === 'refused' || !question) return dnsPacket.encode({ ...header(RCODE.REFUSED), answers: [] });
  const name = plain(question.name);
  const zone = zones.get(name);
  const under = [...zones.keys()].some((z) => name.endsWith(`.${z}`));
  if (!zone && !under) return dnsPacket.encode({ ...header(RCODE.NXDOMAIN), answers: [] });
  const answers = zone ? recordsOf(question, name, zone) : [];
  const full = dnsPacket.encode({ ...header(RCODE.NOERROR), answers });
  if (full.length <= (limit ?? udpSize(query))) return full;
  return dnsPacket.encode({ ...header(RCODE.NOERROR, dnsPacket.TRUNCATED_RESPONSE), answers: [] });
}

/** The UDP size the query allows: its EDNS0 OPT record's, else 512. */
function udpSize(query: Packet): number {
  const opt = (query.additionals ?? []).find((a) => a.type === 'OPT') as { udpPayloadSize?: number } | undefined;
  return Math.max(512, opt?.udpPayloadSize ?? 512);
}

function recordsOf(question: Question, name: string, zone: FakeDnsZone): Answer[] {
  const base = { name: question.name, ttl: TTL, class: 'IN' as const };
  switch (question.type) {
    case 'A':
      return (zone.A ?? []).map((data) => ({ ...base, type: 'A' as const, data }));
    case 'AAAA':
      return (zone.AAAA ?? []).map((data) => ({ ...base, type: 'AAAA' as const, data }));
    case 'NS':
      return (zone.NS ?? []).map((data) => ({ ...base, type: 'NS' as const, data }));
    case 'MX':
      return (zone.MX ?? []).map((mx) => ({ ...base, type: 'MX' as const, data: { preference: mx.priority, exchange: mx.exchange } }));
    case 'TXT':
      return (zone.TXT ?? []).map((text) => ({ ...base, type: 'TXT' as const, data: chunks(text) }));
    case 'SOA':
      return [{ ...base, type: 'SOA' as const, data: { mname: `ns1.${name}`, rname: `hostmaster.${name}`, serial: 2026113001, refresh: 7200, retry: 3600, expire: 1209600, minimum: TTL } }];
    default:
      return [];
  }
}

/** A TXT string as its 255-byte character-strings (RFC 1035 §3.3.14). */
function chunks(text: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += 255) out.push(text.slice(i, i + 255));
  return out.length > 0 ? out : [''];
}
