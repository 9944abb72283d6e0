/**
 * Where the embedded service's memory is, sampled over time (BENCH_MEMORY_TRACE=<file> for
 * bench/servers/scrape-service.ts, so `BENCH_MEMORY_TRACE=/tmp/t.jsonl npx tsx bench/crawl.ts`
 * traces a crawl). Every BENCH_MEMORY_TRACE_MS (default 1000) one JSON line is appended:
 *
 *   t          seconds since the trace started
 *   status     /proc/self/status in MB: rss, anon, file, hwm (peak), and the thread count
 *   maps       resident MB by mapping kind from /proc/self/smaps: `chdb_file` (libchdb.so's
 *              pages that are the file's), `chdb_anon` (its written pages: relocations, .data,
 *              .bss), `node` (the node binary), `files` (other files), `brk` ([heap], glibc's
 *              main arena), `arenas` (anonymous regions inside a 64 MiB-aligned reservation
 *              of 64 MiB: glibc's thread arenas), `stacks` ([stack] and 8 MiB regions behind
 *              a guard page), `anon` (the rest: V8's heap and code, large malloc blocks
 *              (mmapped), the engine's own mmaps)
 *   malloc     glibc mallinfo2 in MB: arena (bytes in arenas), mmap (large blocks), used, free,
 *              releasable (top pad)
 *   v8         process.memoryUsage in MB: heapTotal, heapUsed, external, arrayBuffers, and
 *              the code space's committed size
 *   chdb       the engine's counters (a second connection to the same data directory):
 *              MemoryTracking, jemalloc's allocated, active, resident and mapped MB every fifth sample (the engine links its own jemalloc; glibc's mallinfo does not see it), merges in
 *              flight and their memory, active parts; `mergeTables` (each merge in flight: its
 *              table, algorithm, MB and rows read) and `statements` (each statement holding
 *              over 1 MB: its MB and its first 90 characters)
 *   writer     the batch writer: rows written and not landed, the characters of their string
 *              fields, and the peak of those
 *
 * Diagnostic only: the chdb counters cost a few queries a second, so figures measured with a
 * trace are not the bench's.
 */
import { appendFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { getHeapSpaceStatistics } from 'node:v8';

const MB = 1024 * 1024;
const round1 = (n: number) => Math.round(n * 10) / 10;

const HEADER = /^([0-9a-f]+)-([0-9a-f]+) (\S{4}) \S+ \S+ \S+\s*(.*)$/;
const RSS = /^Rss:\s+(\d+) kB$/;
const ARENA = 64 * MB;

interface Region {
  start: number;
  end: number;
  perms: string;
  path: string;
  rssKb: number;
}

function regions(): Region[] {
  const out: Region[] = [];
  let current: Region | null = null;
  for (const line of readFileSync('/proc/self/smaps', 'utf8').split('\n')) {
    const h = HEADER.exec(line);
    if (h) {
      current = { start: Number.parseInt(h[1]!, 16), end: Number.parseInt(h[2]!, 16), perms: h[3]!, path: h[4]!, rssKb: 0 };
      out.push(current);
      continue;
    }
    const r = RSS.exec(line);
    if (r && current) current.rssKb = Number(r[1]);
  }
  return out;
}

/** Resident MB by mapping kind. */
export function mapsByKind(): Record<string, number> {
  const rs = regions();
  const kb: Record<string, number> = { chdb_file: 0, chdb_anon: 0, node: 0, files: 0, brk: 0, arenas: 0, stacks: 0, anon: 0 };
  // glibc's thread arenas: a 64 MiB-aligned reservation, rw- at its start, ---p for the rest.
  const arenaStarts = new Set<number>();
  for (const r of rs) if (r.path === '' && r.start % ARENA === 0 && r.perms.startsWith('rw')) arenaStarts.add(r.start);
  for (let i = 0; i < rs.length; i += 1) {
    const r = rs[i]!;
    if (r.rssKb === 0) continue;
    if (r.path.endsWith('libchdb.so')) kb[r.perms.includes('w') ? 'chdb_anon' : 'chdb_file']! += r.rssKb;
    else if (r.path.endsWith('/node') || r.path.endsWith('/nodejs')) kb.node! += r.rssKb;
    else if (r.path === '[heap]') kb.brk! += r.rssKb;
    else if (r.path === '[stack]') kb.stacks! += r.rssKb;
    else if (r.path.startsWith('/')) kb.files! += r.rssKb;
    else if (r.path === '') {
      const base = r.start - (r.start % ARENA);
      const prev = rs[i - 1];
      if (arenaStarts.has(base) && r.end - base <= ARENA) kb.arenas! += r.rssKb;
      else if (r.end - r.start === 8 * MB && prev && prev.end === r.start && prev.perms === '---p') kb.stacks! += r.rssKb;
      else kb.anon! += r.rssKb;
    } else kb.anon! += r.rssKb;
  }
  return Object.fromEntries(Object.entries(kb).map(([k, v]) => [k, round1(v / 1024)]));
}

function status(): { rss: number; anon: number; file: number; hwm: number; threads: number } {
  const text = readFileSync('/proc/self/status', 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? 0);
  return {
    rss: round1(field('VmRSS') / 1024),
    anon: round1(field('RssAnon') / 1024),
    file: round1(field('RssFile') / 1024),
    hwm: round1(field('VmHWM') / 1024),
    threads: field('Threads'),
  };
}

type MallInfo = () => Record<string, bigint | number>;
let mallinfo: MallInfo | null | undefined;

function mallocInfo(): Record<string, number> | null {
  if (mallinfo === undefined) {
    try {
      const koffi = createRequire(import.meta.url)('koffi') as {
        struct(name: string, def: Record<string, string>): unknown;
        load(name: string): { func(name: string, ret: unknown, args: unknown[]): () => Record<string, bigint | number> };
      };
      const fields = ['arena', 'ordblks', 'smblks', 'hblks', 'hblkhd', 'usmblks', 'fsmblks', 'uordblks', 'fordblks', 'keepcost'];
      const struct = koffi.struct('mallinfo2', Object.fromEntries(fields.map((f) => [f, 'size_t'])));
      mallinfo = koffi.load('libc.so.6').func('mallinfo2', struct, []);
    } catch {
      mallinfo = null;
    }
  }
  if (!mallinfo) return null;
  const m = mallinfo();
  const mb = (k: string) => round1(Number(m[k]) / MB);
  return { arena: mb('arena'), mmap: mb('hblkhd'), used: mb('uordblks'), free: mb('fordblks'), releasable: mb('keepcost') };
}

function v8(): Record<string, number> {
  const m = process.memoryUsage();
  const spaces = getHeapSpaceStatistics();
  const space = (name: string) => round1((spaces.find((s) => s.space_name === name)?.space_size ?? 0) / MB);
  const code = spaces.find((s) => s.space_name === 'code_space');
  return {
    newSpace: space('new_space'),
    oldSpace: space('old_space'),
    largeObjects: space('large_object_space'),
    heapTotal: round1(m.heapTotal / MB),
    heapUsed: round1(m.heapUsed / MB),
    external: round1(m.external / MB),
    arrayBuffers: round1(m.arrayBuffers / MB),
    code: round1((code?.space_size ?? 0) / MB),
  };
}

/** What the batch writer holds: rows written and not landed, their string bytes, writes, and the peak held. */
export const writerCounts = { inFlightRows: 0, inFlightBytes: 0, writes: 0, peakInFlightBytes: 0 };

function stringBytes(rows: readonly Record<string, unknown>[]): number {
  let n = 0;
  for (const row of rows) for (const v of Object.values(row)) if (typeof v === 'string') n += v.length;
  return n;
}

/**
 * Counts what passes through BatchWriter.write (wrapping its prototype; the store's module is
 * not imported here: the engine must load after STORE_MALLOC_CONF is set).
 */
export function watchWriter(writer: { prototype: { write(table: string, rows: readonly Record<string, unknown>[], o?: unknown): Promise<void> } }): void {
  const write = writer.prototype.write;
  writer.prototype.write = function (this: unknown, table, rows, o) {
    const bytes = stringBytes(rows);
    writerCounts.writes += 1;
    writerCounts.inFlightRows += rows.length;
    writerCounts.inFlightBytes += bytes;
    writerCounts.peakInFlightBytes = Math.max(writerCounts.peakInFlightBytes, writerCounts.inFlightBytes);
    const p = write.call(this, table, rows, o);
    const done = () => {
      writerCounts.inFlightRows -= rows.length;
      writerCounts.inFlightBytes -= bytes;
    };
    p.then(done, done);
    return p;
  };
}

interface ChdbSession {
  queryAsync(sql: string, opts: { format: string }): Promise<{ text(): string }>;
  close(): void;
}

async function chdbCounters(session: ChdbSession, jemalloc: boolean): Promise<Record<string, number | string | string[]>> {
  const out: Record<string, number | string | string[]> = {};
  try {
    const metrics = (await session.queryAsync(
      "SELECT metric, value FROM system.metrics WHERE metric IN ('MemoryTracking','Merge','BackgroundMergesAndMutationsPoolTask','PartsActive','Query','GlobalThread','GlobalThreadActive','LocalThread','LocalThreadActive')",
      { format: 'TabSeparated' },
    )).text();
    for (const line of metrics.split('\n')) {
      const [k, v] = line.split('\t');
      if (k) out[k] = k === 'MemoryTracking' ? round1(Number(v) / MB) : Number(v);
    }
    // The engine's jemalloc (statically linked in libchdb, so mallinfo does not see it): the summary line of its stats.
    const je = !jemalloc ? '' : (await session.queryAsync('SELECT * FROM system.jemalloc_stats', { format: 'TSVRaw' })).text();
    const summary = /Allocated: (\d+), active: (\d+), metadata: (\d+).*?resident: (\d+), mapped: (\d+), retained: (\d+)/.exec(je);
    if (summary) {
      const [allocated, active, metadata, resident, mapped] = summary.slice(1, 6).map((v) => round1(Number(v) / MB));
      Object.assign(out, { jeAllocated: allocated!, jeActive: active!, jeMetadata: metadata!, jeResident: resident!, jeMapped: mapped! });
    }
    const merges = (await session.queryAsync('SELECT count(), sum(memory_usage) FROM system.merges', { format: 'TabSeparated' })).text().trim().split('\t');
    out.merges = Number(merges[0]);
    out.mergesMb = round1(Number(merges[1]) / MB);
    // Which merges and statements hold the engine's memory at this instant (table or the statement's start, MB).
    const detail = async (sql: string): Promise<string[]> =>
      (await session.queryAsync(sql, { format: 'TSVRaw' })).text().split('\n').filter(Boolean);
    out.mergeTables = await detail(
      "SELECT concat(table, ' ', merge_algorithm, ' ', toString(round(memory_usage / 1048576, 1)), ' MB ', toString(rows_read), ' rows') FROM system.merges",
    );
    out.statements = await detail(
      "SELECT concat(toString(round(memory_usage / 1048576, 1)), ' MB ', substring(replaceRegexpAll(query, '\\s+', ' '), 1, 90)) FROM system.processes WHERE memory_usage > 1048576",
    );
  } catch (error) {
    out.error = error instanceof Error ? error.message.slice(0, 200) : String(error);
  }
  return out;
}

/**
 * Starts the trace into `file`: a line every `everyMs`. `chdbDir` is the engine's data
 * directory (a second connection to it reads its counters). Returns a stop function.
 */
export async function startMemoryTrace(file: string, everyMs: number, chdbDir: string | null): Promise<() => void> {
  let session: ChdbSession | null = null;
  if (chdbDir) {
    const { Session } = (await import('chdb')) as unknown as { Session: new (path: string) => ChdbSession };
    session = new Session(chdbDir);
  }
  const started = performance.now();
  let busy = false;
  let peak = 0;
  let samples = 0;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    const st = status();
    if (process.env.BENCH_MEMORY_TRACE_PEAK && st.rss > peak + 5) {
      // The anonymous regions at a new peak, largest first, with the threads' names.
      peak = st.rss;
      const anon = regions().filter((r) => !r.path.startsWith('/') && r.rssKb > 256).sort((a, b) => b.rssKb - a.rssKb);
      const threads: Record<string, number> = {};
      for (const tid of readdirSync('/proc/self/task')) {
        try {
          const name = readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim();
          threads[name] = (threads[name] ?? 0) + 1;
        } catch {
          // ended
        }
      }
      writeFileSync(process.env.BENCH_MEMORY_TRACE_PEAK, JSON.stringify({ rss: st.rss, threads, anon: anon.map((r) => ({ start: r.start.toString(16), mb: round1((r.end - r.start) / MB), rssMb: round1(r.rssKb / 1024), perms: r.perms, path: r.path })) }, null, 1));
    }
    const line: Record<string, unknown> = { t: round1((performance.now() - started) / 1000), status: st, maps: mapsByKind(), malloc: mallocInfo(), v8: v8(), writer: { ...writerCounts, inFlightMb: round1(writerCounts.inFlightBytes / MB), peakInFlightMb: round1(writerCounts.peakInFlightBytes / MB) } };
    samples += 1;
    void (session ? chdbCounters(session, samples % 5 === 1) : Promise.resolve(null))
      .then((chdb) => appendFileSync(file, `${JSON.stringify({ ...line, chdb })}\n`))
      .finally(() => {
        busy = false;
      });
  }, everyMs);
  timer.unref();
  return () => {
    clearInterval(timer);
    session?.close();
  };
}
