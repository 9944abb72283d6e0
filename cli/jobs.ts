/**
 * Following a job (crawl, batch scrape, Find Leads) to its end with a progress bar, then
 * answering its results. Ctrl-C while following a crawl (standard input a terminal) asks what
 * to do: `y` cancels the job (DELETE /v1/crawl/{id}: the pages read so far are kept and
 * answered), `n` keeps following it, `q` quits and leaves it running. Without a terminal to
 * ask on (or for a batch, which cannot be cancelled), Ctrl-C quits and leaves the job running,
 * saying how to follow or cancel it later.
 */
import { createInterface } from 'node:readline';
import type { Api } from './client.js';
import { EXIT } from './client.js';
import { createProgress, type Counts, type Progress } from './progress.js';
import type { Json } from './output.js';

export type JobKind = 'crawl' | 'batch' | 'leads';

const STATUS_PATH: Record<JobKind, string> = { crawl: '/v1/crawl', batch: '/v1/batch', leads: '/v1/leads' };
const ENDED = new Set(['completed', 'failed', 'cancelled']);
/** How often a job's status is asked. */
export const POLL_MS = 500;

export interface FollowOptions {
  readonly label: string;
  readonly say: (line: string) => void;
  /** Draw a bar (standard error is a terminal) or print plain lines. */
  readonly tty: boolean;
  /** Ctrl-C may ask on standard input (it is a terminal). */
  readonly ask: boolean;
}

export interface Followed {
  /** The last status answer. */
  readonly status: Json;
  /** Why following stopped before the job ended: the user quit. */
  readonly left: boolean;
}

export function jobPath(kind: JobKind, id: string): string {
  return `${STATUS_PATH[kind]}/${encodeURIComponent(id)}`;
}

function countsOf(kind: JobKind, status: Json): Counts {
  const s = String(status.status ?? '');
  if (kind === 'leads') {
    const leads = Array.isArray(status.leads) ? status.leads.length : 0;
    return { done: leads, total: Math.max(Number(status.limit) || 0, leads), errors: 0, status: String(status.stage ?? s) };
  }
  return { done: Number(status.completed) || 0, total: Number(status.total) || 0, errors: Number(status.failed) || 0, status: s };
}

function ended(kind: JobKind, status: Json): boolean {
  if (kind === 'leads') return status.partial === false && status.status !== 'queued';
  return ENDED.has(String(status.status));
}

/** Asks one question on the terminal; the answer's first letter, lower case. */
async function question(text: string): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return await new Promise<string>((resolve) => {
      rl.question(text, (answer) => resolve(answer.trim().toLowerCase().slice(0, 1)));
      rl.once('close', () => resolve(''));
    });
  } finally {
    rl.close();
  }
}

/** Polls the job until it ends (or the user quits following it), drawing its progress. */
export async function followJob(api: Api, kind: JobKind, id: string, options: FollowOptions): Promise<Followed> {
  const progress: Progress = createProgress({ label: options.label, unit: kind === 'leads' ? 'leads' : 'pages', tty: options.tty, stream: process.stderr });
  let interrupted = false;
  let wake: (() => void) | null = null;
  const onSigint = () => {
    interrupted = true;
    wake?.();
  };
  process.on('SIGINT', onSigint);
  let status: Json = {};
  try {
    for (;;) {
      status = (await api.call('GET', jobPath(kind, id))) as Json;
      progress.update(countsOf(kind, status));
      if (ended(kind, status)) return { status, left: false };
      if (interrupted) {
        interrupted = false;
        progress.pause();
        const choice = await decide(api, kind, id, options);
        if (choice === 'quit') return { status, left: true };
        if (choice === 'cancelled') {
          status = (await api.call('GET', jobPath(kind, id))) as Json;
          progress.update(countsOf(kind, status));
          return { status, left: false };
        }
        progress.resume();
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, POLL_MS);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = null;
    }
  } finally {
    process.off('SIGINT', onSigint);
    progress.stop();
  }
}

/** What Ctrl-C does: cancel the job, keep following it, or quit leaving it running. */
async function decide(api: Api, kind: JobKind, id: string, options: FollowOptions): Promise<'cancelled' | 'follow' | 'quit'> {
  const later = kind === 'leads' ? `leads-status ${id} --wait` : `${kind}-status ${id} --wait`;
  const canCancel = kind !== 'batch';
  if (!options.ask || !canCancel) {
    options.say(`\n${kind} ${id} left running; follow it with \`web-data-service ${later}\`${canCancel ? `, cancel it with \`web-data-service ${kind}-cancel ${id}\`` : ''}`);
    return 'quit';
  }
  process.stderr.write('\n');
  const answer = await question(`Cancel ${kind} ${id}? [y] cancel it (pages read so far are kept)  [n] keep following  [q] quit, leave it running: `);
  if (answer === 'y') {
    const result = (await api.call('DELETE', jobPath(kind, id))) as Json;
    options.say(`${kind} ${id} ${result.status === 'cancelled' ? 'cancelled' : `had already ended (${String(result.status)})`}`);
    return 'cancelled';
  }
  if (answer === 'q') {
    options.say(`${kind} ${id} left running; follow it with \`web-data-service ${later}\``);
    return 'quit';
  }
  options.say(`${kind} ${id} keeps running; following it again (Ctrl-C to ask again)`);
  return 'follow';
}

/** Every stored page of a crawl or batch, a listing page at a time. */
export async function* jobPages(api: Api, kind: 'crawl' | 'batch', id: string): AsyncGenerator<Json> {
  let cursor: string | null = null;
  do {
    const page = (await api.call('GET', `${jobPath(kind, id)}/pages`, { query: { limit: 200, ...(cursor ? { cursor } : {}) } })) as Json;
    const docs = (page.data ?? []) as Json[];
    for (const doc of docs) yield doc;
    // A job that ended with pages never stored (cancelled in flight) lists no more: an empty page ends it.
    cursor = typeof page.next === 'string' && docs.length > 0 ? page.next : null;
  } while (cursor);
}

/** A job's exit code: 0 all read, 3 partial (errors, cancelled, or failed with some results), 1 failed with nothing. */
export function jobExitCode(kind: JobKind, status: Json, results: number): number {
  const s = String(status.status);
  const errors = kind === 'leads' ? 0 : Number(status.failed) || 0;
  if (s === 'completed' && errors === 0 && !(kind === 'leads' && status.error)) return EXIT.ok;
  return results > 0 ? EXIT.partial : EXIT.failed;
}
