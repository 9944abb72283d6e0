/**
 * Giving back the embedded engine's start-up pages.
 *
 * libchdb.so is the whole ClickHouse server in one 540 MB library. Loading it runs the static
 * registration of every function, format, codec and table engine and reads its relocation and
 * symbol tables: ~130 MB of the library's code and read-only data are paged in at start and
 * stay mapped into this process, counted in its resident set, although most of it is never
 * run again (measured: RSS 200 MB after `import('chdb')`, 73 MB after this; a 10,000-page crawl
 * pages back ~50 MB of it).
 *
 * The node executable is the same kind of file: ~100 MB of V8, Node, OpenSSL and ICU's data,
 * of which start-up (module loading and compiling) pages in ~58 MB and a crawl keeps running
 * ~25 MB (measured: a 10,000-page crawl's resident pages of the executable 58.5 → 25–27 MB
 * when they are released with the library's; bench/README.md). `CODE_FILES` names both.
 *
 * `releaseCleanPages` tells the kernel (`madvise(MADV_DONTNEED)`) that this process no longer
 * needs the pages of a library's mappings that are still exactly the file's bytes: read-only,
 * not written (no private dirty page, no anonymous page). For such a private file mapping the
 * next access maps the page again from the page cache (or the file), so nothing changes but
 * the resident set. Mappings written at load (relocated data, `.data`, `.bss`) are never
 * touched: dropping those would lose the writes.
 *
 * The system call goes through koffi (an FFI library with prebuilt binaries from npm). Where
 * it or /proc/self/smaps is missing (not Linux, an unsupported platform), nothing is released
 * and the reason is returned.
 */
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Logger } from '../log.js';

/** `madvise` advice: the process will not need these pages (linux/mman.h). */
const MADV_DONTNEED = 4;

/** The chdb engine's shared library (node_modules/@chdb/lib-<platform>/), as /proc/self/smaps names it. */
export const ENGINE_LIBRARY = 'libchdb.so';

/** The running node executable's real path (as /proc/self/maps names it); none when it cannot be resolved. */
function nodeExecutable(): string[] {
  try {
    return [realpathSync(process.execPath)];
  } catch {
    return [];
  }
}

/** The files whose clean pages the store's releases give back: the engine library and the node executable. */
export const CODE_FILES: readonly string[] = [ENGINE_LIBRARY, ...nodeExecutable()];

export interface Mapping {
  readonly start: bigint;
  readonly end: bigint;
  readonly perms: string;
  readonly path: string;
  /** The smaps fields in KiB (Rss, Private_Dirty, Anonymous, …). */
  readonly kb: ReadonlyMap<string, number>;
}

const HEADER = /^([0-9a-f]+)-([0-9a-f]+) (\S{4}) \S+ \S+ \S+\s*(.*)$/;
const FIELD = /^([A-Za-z_]+):\s+(\d+) kB$/;

/** The mappings of /proc/<pid>/smaps text. */
export function parseSmaps(text: string): Mapping[] {
  const mappings: Mapping[] = [];
  let kb: Map<string, number> | null = null;
  for (const line of text.split('\n')) {
    const header = HEADER.exec(line);
    if (header) {
      kb = new Map();
      mappings.push({ start: BigInt(`0x${header[1]}`), end: BigInt(`0x${header[2]}`), perms: header[3]!, path: header[4]!, kb });
      continue;
    }
    const field = FIELD.exec(line);
    if (field && kb) kb.set(field[1]!, Number(field[2]));
  }
  return mappings;
}

/**
 * Mappings of the file named `fileName` (a bare name matches the file in any directory, a
 * path only itself) whose every resident page is still the file's.
 */
export function cleanMappingsOf(mappings: readonly Mapping[], fileName: string): Mapping[] {
  return mappings.filter(
    (m) =>
      (m.path === fileName || (!fileName.includes('/') && m.path.endsWith(`/${fileName}`))) &&
      !m.perms.includes('w') &&
      m.kb.get('Private_Dirty') === 0 &&
      m.kb.get('Anonymous') === 0,
  );
}

type Madvise = (address: bigint, length: bigint, advice: number) => number;
type MallocTrim = (pad: number) => number;

let madvise: Madvise | string | undefined;
let mallocTrim: MallocTrim | string | undefined;

/** A function of glibc (libc.so.6) through koffi, or why it is not callable here. */
export function libcFunction(signature: string): ((...args: unknown[]) => unknown) | string {
  try {
    const koffi = createRequire(import.meta.url)('koffi') as {
      load(name: string): { func(signature: string): (...args: unknown[]) => unknown };
    };
    return koffi.load('libc.so.6').func(signature);
  } catch (error) {
    return `${signature} is not callable here: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/** libc's madvise through koffi, or why it is not available. */
function loadMadvise(): Madvise | string {
  if (madvise !== undefined) return madvise;
  const call = libcFunction('int madvise(uintptr_t addr, size_t len, int advice)');
  madvise = typeof call === 'string' ? call : (address, length, advice) => Number(call(address, length, advice));
  return madvise;
}

/**
 * Gives the free memory of the C heap back to the kernel: glibc's `malloc_trim(0)`, which
 * returns the free pages inside every malloc arena, not only the top of the main one (the
 * engine allocates with the system malloc, from many threads, so after a busy spell tens of
 * MB of its arenas are free but still resident). Returns whether memory was given back, or
 * why it could not be asked (not glibc, no koffi). Takes ~10–30 ms: call it when idle.
 */
export function trimMallocArenas(): boolean | string {
  if (mallocTrim === undefined) {
    const call = libcFunction('int malloc_trim(size_t pad)');
    mallocTrim = typeof call === 'string' ? call : (pad) => Number(call(pad));
  }
  return typeof mallocTrim === 'string' ? mallocTrim : mallocTrim(0) === 1;
}

export interface Released {
  /** KiB that were resident in the released mappings. */
  readonly kb: number;
  readonly mappings: number;
  /** Set when nothing could be released, and why. */
  readonly skipped?: string;
}

/** Releases the resident pages of the unwritten mappings of each of `fileNames` in this process (smaps read once). */
export function releaseCleanPages(fileNames: readonly string[]): Released {
  const smaps = '/proc/self/smaps';
  if (!existsSync(smaps)) return { kb: 0, mappings: 0, skipped: `${smaps} does not exist` };
  const call = loadMadvise();
  if (typeof call === 'string') return { kb: 0, mappings: 0, skipped: call };
  const mappings = parseSmaps(readFileSync(smaps, 'utf8'));
  let kb = 0;
  let count = 0;
  for (const fileName of fileNames) {
    const clean = cleanMappingsOf(mappings, fileName);
    knownClean.set(fileName, clean);
    const released = adviseDontNeed(call, clean);
    kb += released.reduce((sum, m) => sum + (m.kb.get('Rss') ?? 0), 0);
    count += released.length;
  }
  return { kb, mappings: count };
}

/** `madvise(MADV_DONTNEED)` over each mapping; the ones the kernel accepted. */
function adviseDontNeed(call: Madvise, mappings: readonly Mapping[]): Mapping[] {
  return mappings.filter((m) => call(m.start, m.end - m.start, MADV_DONTNEED) === 0);
}

/** The clean mappings of each file as the last releaseCleanPages found them. */
const knownClean = new Map<string, readonly Mapping[]>();

const MAPS_LINE = /^([0-9a-f]+)-([0-9a-f]+) (\S{4}) /;

/**
 * releaseCleanPages without reading /proc/self/smaps again (the kernel walks every page of
 * every mapping to write it: ~8 ms, and parsing it as much again, in a process this size):
 * the mappings the last releaseCleanPages found clean, each released again only if
 * /proc/self/maps (cheap: no page walk) still lists it at the same address with the same
 * permissions, none writable. A read-only mapping gets no new private page without being made
 * writable first, so one found clean stays clean. What was resident is not counted (`kb` 0).
 * Falls back to releaseCleanPages when a file is not known yet.
 */
export function releaseKnownCleanPages(fileNames: readonly string[]): Released {
  if (fileNames.some((fileName) => !knownClean.has(fileName))) return releaseCleanPages(fileNames);
  const known = fileNames.flatMap((fileName) => knownClean.get(fileName) ?? []);
  const maps = '/proc/self/maps';
  if (!existsSync(maps)) return { kb: 0, mappings: 0, skipped: `${maps} does not exist` };
  const call = loadMadvise();
  if (typeof call === 'string') return { kb: 0, mappings: 0, skipped: call };
  const current = new Map<bigint, { end: bigint; perms: string }>();
  for (const line of readFileSync(maps, 'utf8').split('\n')) {
    const m = MAPS_LINE.exec(line);
    if (m) current.set(BigInt(`0x${m[1]}`), { end: BigInt(`0x${m[2]}`), perms: m[3]! });
  }
  const unchanged = known.filter((m) => {
    const now = current.get(m.start);
    return now !== undefined && now.end === m.end && now.perms === m.perms && !now.perms.includes('w');
  });
  return { kb: 0, mappings: adviseDontNeed(call, unchanged).length };
}

/**
 * Once the engine is up (the embedded store migrated, chdb-http answering): the start-up pages
 * of its library and of the node executable go back.
 */
export function releaseEngineStartupPages(log: Logger): Released {
  const released = releaseCleanPages(CODE_FILES);
  log.debug({ releasedKb: released.kb, mappings: released.mappings, skipped: released.skipped }, 'start-up code pages released');
  return released;
}
