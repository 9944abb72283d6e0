/**
 * Instructions per request of the crawl-422 scenario of bench/gateway.ts, counted by
 * valgrind's callgrind: a count, where requests/s and CPU time move by ±50% with the other
 * load of this shared machine. One server process (the gateway, or bare Fastify answering the
 * gateway's own 422 body, bench/servers/) runs under callgrind with instrumentation off; after
 * BENCH_ICOUNT_WARMUP requests (default 12,000, so V8 has optimized the hot code) it is
 * switched on for BENCH_ICOUNT_REQUESTS requests (default 3,000), BENCH_ICOUNT_REPEATS times
 * (default 2), and each window's count is written per thread (`--separate-threads`):
 * `main_per_req` is the JavaScript thread's, `all_per_req` every thread's (V8's compiler and
 * concurrent marking included, which vary more between windows).
 *
 *   npx tsx bench/gateway-instructions.ts gateway     # then: bare
 *
 * Needs valgrind (callgrind_control). Slow: several minutes per server under valgrind.
 * Not a scenario of `npm run bench` (bench/run.ts) or `bench:quick`: it needs valgrind and a side. Clock-driven caches count differently under valgrind (a
 * request takes a millisecond or more there, so the access line's per-millisecond head is
 * made for every line): the gateway's count is a little above what it runs natively.
 */
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { positiveInteger } from './lib.js';

const side = process.argv[2];
if (side !== 'gateway' && side !== 'bare') throw new Error('usage: gateway-instructions.ts gateway|bare');
const WARMUP = positiveInteger('BENCH_ICOUNT_WARMUP', 12000);
const REQUESTS = positiveInteger('BENCH_ICOUNT_REQUESTS', 3000);
const REPEATS = positiveInteger('BENCH_ICOUNT_REPEATS', 2);
const BODY = JSON.stringify({ url: 'https://example.com', limit: 0 });
/** The gateway's 422 for BODY (bench/gateway.ts hands bare Fastify the gateway's own answer; checked below). */
const GATEWAY_422 = { detail: [{ loc: ['body', 'limit'], msg: 'must be >= 1', type: 'greater_than_equal' }] };

const outDir = mkdtempSync(join(tmpdir(), 'wds-icount-'));
const script = fileURLToPath(new URL(`./servers/${side}.ts`, import.meta.url));
const env: Record<string, string | undefined> = { ...process.env, LOG_LEVEL: process.env.BENCH_LOG_LEVEL || 'info', RATE_LIMIT_PER_MINUTE: '0' };
if (side === 'bare') env.BENCH_BARE_RESPONSES = JSON.stringify({ crawl422: GATEWAY_422 });
const child = spawn(
  'valgrind',
  ['--tool=callgrind', '--instr-atstart=no', '--separate-threads=yes', '--smc-check=all-non-file', `--callgrind-out-file=${outDir}/cg.%p`, process.execPath, '--import', 'tsx', script],
  { env, stdio: ['ignore', 'ignore', 'ignore', 'ipc'] },
);

try {
  const ready = await new Promise<{ port: number; key?: string }>((resolve, reject) => {
    child.once('message', (m) => resolve(m as { port: number; key?: string }));
    child.once('exit', (code) => reject(new Error(`server exited (${code}) before it listened`)));
  });
  const url = `http://127.0.0.1:${ready.port}/v1/crawl`;
  const headers = { authorization: `Bearer ${ready.key ?? 'wds_none'}`, 'content-type': 'application/json' };
  const answer = await fetch(url, { method: 'POST', headers, body: BODY });
  const text = await answer.text();
  if (answer.status !== 422 || text !== JSON.stringify(GATEWAY_422)) throw new Error(`${side} answered ${answer.status} ${text}`);
  // A request under callgrind on a loaded machine can take seconds: autocannon's 10 s timeout would count it an error.
  const load = (amount: number) => autocannon({ url, method: 'POST', headers, body: BODY, amount, connections: 10, timeout: 600 });
  const control = (...args: string[]) => execFileSync('callgrind_control', [...args, String(child.pid)], { stdio: 'ignore' });
  await load(WARMUP);
  for (let i = 1; i <= REPEATS; i += 1) {
    control('-z');
    control('-i', 'on');
    const r = await load(REQUESTS);
    control('-i', 'off');
    control('-d', `window${i}`);
    const statuses = Object.keys(r.statusCodeStats ?? {});
    if (r.errors || statuses.some((s) => s !== '422')) throw new Error(`unexpected answers: ${statuses.join(',')}, ${r.errors} errors`);
    // Dump `i` is written as cg.<pid>.<i>-<thread>; thread 01 is the main (JavaScript) thread.
    const files = readdirSync(outDir).filter((f) => f.startsWith(`cg.${child.pid}.${i}-`));
    let all = 0;
    let main = 0;
    for (const f of files) {
      const total = Number(/^totals: (\d+)/m.exec(readFileSync(join(outDir, f), 'utf8'))?.[1] ?? 0);
      all += total;
      if (f.endsWith('-01')) main = total;
    }
    const n = r.requests.total;
    const line = { bench: 'gateway-instructions', server: side, window: i, requests: n, main_per_req: Math.round(main / n), all_per_req: Math.round(all / n), threads: files.length };
    process.stdout.write(`${JSON.stringify(line)}\n`);
  }
} finally {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
  rmSync(outDir, { recursive: true, force: true });
}
