/**
 * Shared parts of the benchmarks: servers run in child processes (so the load generator and
 * the server do not share an event loop), measurement with autocannon, one JSON line out.
 *
 * Settings (environment): BENCH_DURATION_S seconds per measured run (default 5),
 * BENCH_WARMUP_S seconds of discarded warm-up before each (default 1), BENCH_CONNECTIONS
 * (default 10), BENCH_ROUNDS alternating gateway/baseline rounds, median kept (default 1),
 * BENCH_PROCESSES server processes per side where a benchmark compares servers (default 3).
 */
import { fork, type ChildProcess } from 'node:child_process';
import autocannon from 'autocannon';

function positive(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number, got "${raw}"`);
  return n;
}

/** A whole-number setting of a benchmark (page counts, concurrency), at least 1. */
export function positiveInteger(name: string, fallback: number): number {
  const n = positive(name, fallback);
  if (!Number.isInteger(n)) throw new Error(`${name} must be a positive integer, got "${process.env[name]}"`);
  return n;
}

export const SETTINGS = Object.freeze({
  durationS: positive('BENCH_DURATION_S', 5),
  warmupS: positive('BENCH_WARMUP_S', 1),
  connections: positive('BENCH_CONNECTIONS', 10),
  rounds: positive('BENCH_ROUNDS', 1),
  processes: positive('BENCH_PROCESSES', 3),
});

/** Writes one JSON line to stdout: the only output a benchmark makes there. */
export function emit(line: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify(line)}\n`);
}

/** What a server child sends once it listens. */
export interface Ready {
  port: number;
  [extra: string]: unknown;
}

export interface Child {
  readonly ready: Record<string, unknown>;
  /** Asks the child for a message answered with one reply (e.g. its CPU time); 10 s unless told. */
  ask(message: Record<string, unknown>, timeoutMs?: number): Promise<Record<string, unknown>>;
  stop(): Promise<void>;
}

export interface ServerChild extends Child {
  readonly url: string;
  readonly ready: Ready;
}

function nextMessage(child: ChildProcess, timeoutMs: number): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => done(new Error(`no message from child ${child.pid} within ${timeoutMs} ms`)), timeoutMs);
    const onMessage = (m: unknown) => done(null, m as Record<string, unknown>);
    const onExit = (code: number | null) => done(new Error(`child ${child.pid} exited with ${code} before answering`));
    function done(error: Error | null, value?: Record<string, unknown>) {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
      if (error) reject(error);
      else resolve(value as Record<string, unknown>);
    }
    child.once('message', onMessage);
    child.once('exit', onExit);
  });
}

/**
 * Starts `script` (TypeScript, run through tsx) in a child process with an IPC channel. The
 * child's stdout (its log lines) goes to /dev/null; its first message says it is ready.
 */
export async function startChild(script: string, env: Record<string, string> = {}): Promise<Child> {
  const child = fork(script, [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const ready = await nextMessage(child, 60000);
  return {
    ready,
    async ask(message, timeoutMs = 10000) {
      const answer = nextMessage(child, timeoutMs);
      child.send(message);
      return answer;
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** `startChild` for a server: it reports `{port, ...}` once listening. */
export async function startServer(script: string, env: Record<string, string> = {}): Promise<ServerChild> {
  const child = await startChild(script, env);
  const ready = child.ready as Ready;
  if (typeof ready.port !== 'number') {
    await child.stop();
    throw new Error(`child ${script} sent ${JSON.stringify(ready)}`);
  }
  return { ...child, url: `http://127.0.0.1:${ready.port}`, ready };
}

export interface Target {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** Every response must have this status, or the run is not measuring what it claims. */
  status: number;
}

export interface Measurement {
  rps: number;
  /** Server CPU time (user + system) per request, in microseconds: robust to a busy machine. */
  cpu_us_per_req: number;
  p50_ms: number;
  p99_ms: number;
  requests: number;
  errors: number;
}

function run(target: Target, durationS: number): Promise<autocannon.Result> {
  return autocannon({
    url: target.url,
    method: target.method ?? 'GET',
    ...(target.headers ? { headers: target.headers } : {}),
    ...(target.body !== undefined ? { body: target.body } : {}),
    connections: SETTINGS.connections,
    duration: durationS,
  });
}

async function cpuMicros(server: ServerChild): Promise<number> {
  const { user, system } = (await server.ask({ type: 'cpu' })) as { user: number; system: number };
  return user + system;
}

/**
 * One warm-up run (discarded) and one measured run against `server`; throws when a
 * response is unexpected.
 */
export async function measure(server: ServerChild, target: Target): Promise<Measurement> {
  await run(target, SETTINGS.warmupS);
  const cpuBefore = await cpuMicros(server);
  const r = await run(target, SETTINGS.durationS);
  const cpu = (await cpuMicros(server)) - cpuBefore;
  const statuses = Object.fromEntries(
    Object.entries(r.statusCodeStats ?? {}).map(([code, s]) => [code, s.count ?? 0]),
  );
  const unexpected = Object.keys(statuses).filter((code) => Number(code) !== target.status);
  if (unexpected.length || r.errors > 0 || r.requests.total === 0) {
    throw new Error(
      `${target.method ?? 'GET'} ${target.url}: expected only ${target.status}, got statuses ${JSON.stringify(statuses)}, ${r.errors} errors`,
    );
  }
  return {
    rps: Math.round(r.requests.average),
    cpu_us_per_req: Math.round(cpu / r.requests.total),
    p50_ms: r.latency.p50,
    p99_ms: r.latency.p99,
    requests: r.requests.total,
    errors: r.errors,
  };
}

const round3 = (n: number) => Math.round(n * 1000) / 1000;

export function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

/** A child's CPU time so far (user + system), in ms: it answers `{type: 'cpu'}` with process.cpuUsage(). */
export async function cpuMs(child: Child): Promise<number> {
  const { user, system } = (await child.ask({ type: 'cpu' })) as { user: number; system: number };
  return (user + system) / 1000;
}

export interface Comparison {
  rps: number;
  p99_ms: number;
  baseline_rps: number;
  baseline_p99_ms: number;
  /** Median of the rounds' requests/s of the subject over the baseline's. */
  ratio: number;
  round_ratios: number[];
  cpu_us_per_req: number;
  baseline_cpu_us_per_req: number;
  /** Median of the rounds' baseline server CPU per request over the subject's: less swayed than `ratio` by other load. */
  cpu_ratio: number;
  round_cpu_ratios: number[];
}

/** One server of each side, each with the request it is measured on. */
export interface Pair {
  subject: { server: ServerChild; target: Target };
  baseline: { server: ServerChild; target: Target };
}

/**
 * Measures subject and baseline back to back in each round, for each pair of server
 * processes: the subject first in one round and the baseline first in the next (alternating
 * by pair too); ratios per round and pair (two measurements under the same load), then their
 * medians. rps, p99 and CPU are each side's medians over every measurement. Several pairs of
 * processes: one process of the same build can settle a few percent to 20% faster or slower
 * than another for its whole life (the JIT's choices, where its memory landed), so a single
 * pair measures which processes it drew as much as the code.
 */
export async function compare(pairs: readonly Pair[]): Promise<Comparison & { processes: number }> {
  const s: Measurement[] = [];
  const b: Measurement[] = [];
  for (let round = 0; round < SETTINGS.rounds; round += 1) {
    for (const [i, pair] of pairs.entries()) {
      if ((round + i) % 2 === 0) {
        s.push(await measure(pair.subject.server, pair.subject.target));
        b.push(await measure(pair.baseline.server, pair.baseline.target));
      } else {
        b.push(await measure(pair.baseline.server, pair.baseline.target));
        s.push(await measure(pair.subject.server, pair.subject.target));
      }
    }
  }
  const roundRatios = s.map((m, i) => round3(m.rps / (b[i] as Measurement).rps));
  const roundCpuRatios = s.map((m, i) => round3((b[i] as Measurement).cpu_us_per_req / m.cpu_us_per_req));
  return {
    rps: median(s.map((m) => m.rps)),
    p99_ms: median(s.map((m) => m.p99_ms)),
    baseline_rps: median(b.map((m) => m.rps)),
    baseline_p99_ms: median(b.map((m) => m.p99_ms)),
    ratio: round3(median(roundRatios)),
    round_ratios: roundRatios,
    cpu_us_per_req: median(s.map((m) => m.cpu_us_per_req)),
    baseline_cpu_us_per_req: median(b.map((m) => m.cpu_us_per_req)),
    cpu_ratio: round3(median(roundCpuRatios)),
    round_cpu_ratios: roundCpuRatios,
    processes: pairs.length,
  };
}
