/**
 * The embedded engine's own allocator (STORE_MALLOC_CONF).
 *
 * libchdb.so links its own jemalloc (not exported: Node's allocations stay on glibc malloc, the
 * engine's go to jemalloc, which glibc's mallinfo and malloc_trim do not see). It is built with
 * ClickHouse's server options: freed pages stay resident for `dirty_decay_ms` (5000) before
 * they are purged, and the heap profiler samples an allocation every 512 KiB (`prof_active`).
 * In a 10,000-page crawl that left 50–70 MB of freed but resident pages in the engine's arenas
 * (jemalloc's `resident` 140–180 MB against 105–130 MB `active`).
 *
 * The engine reads its options from the environment variable `JE_MALLOC_CONF` once, when the
 * library is loaded (the first chdb store of the process), so it must be set before: a second
 * store in the same process keeps what the first one loaded with. It is set with libc's
 * `setenv` (the engine reads the C environment; the service's settings are read in one place,
 * pipeline/service/config.ts). An empty value leaves the engine's built-in options alone.
 */
import { libcFunction } from './code-pages.js';
import { StoreError } from './store-error.js';

/** The engine's jemalloc options variable (the library's jemalloc is built with the `je_` prefix). */
export const ENGINE_MALLOC_CONF_VARIABLE = 'JE_MALLOC_CONF';

/** `name:value` pairs separated by commas, as jemalloc reads them (linear: no part can match two ways). */
const CONF = /^[a-z_]+:[A-Za-z0-9_.-]+(?:,[a-z_]+:[A-Za-z0-9_.-]+)*$/;

/** Throws a StoreError (the start fails) when `conf` is not `name:value` pairs. */
export function checkMallocConf(conf: string): void {
  if (!CONF.test(conf)) throw new StoreError(`STORE_MALLOC_CONF must be name:value pairs separated by commas (got ${JSON.stringify(conf.slice(0, 200))})`, { rejected: true });
}

/** Sets the engine's allocator options for when its library loads; returns why it could not, or null. */
export function setEngineMallocConf(conf: string): string | null {
  if (conf === '') return null;
  const setenv = libcFunction('int setenv(const char *name, const char *value, int overwrite)');
  if (typeof setenv === 'string') return setenv;
  return Number(setenv(ENGINE_MALLOC_CONF_VARIABLE, conf, 1)) === 0 ? null : `setenv(${ENGINE_MALLOC_CONF_VARIABLE}) failed`;
}
