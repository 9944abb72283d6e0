/**
 * Mozilla Readability.js (through jsdom, its `textContent`, as the article-extraction
 * benchmark's own runner reads it) over a list of pages, in child processes of `chunk`
 * pages each (jsdom holds on to memory across hundreds of documents). Each page is timed on
 * its own: parse + extraction. A page where Readability finds nothing or throws gives null.
 * Used by bench/main-content.ts and bench/main-content-broad.ts; the child side runs only in the processes it forks.
 */
import { Readability } from '@mozilla/readability';
import { JSDOM, VirtualConsole } from 'jsdom';
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { readHtml } from './corpus.js';

const CHILD_FLAG = 'READABILITY_JS_BENCH_CHILD';

export interface Job {
  readonly path: string;
  readonly url: string;
}

export interface Result {
  readonly text: string | null;
  readonly ms: number;
}

function readability(html: string, url: string): string | null {
  const dom = new JSDOM(html, { url, virtualConsole: new VirtualConsole() });
  try {
    return new Readability(dom.window.document).parse()?.textContent ?? null;
  } finally {
    dom.window.close();
  }
}

/** Readability.js's text and time for each job, in order. */
export async function readabilityTexts(jobs: readonly Job[], chunk = 100): Promise<Result[]> {
  const out: Result[] = [];
  for (let i = 0; i < jobs.length; i += chunk) {
    const part = jobs.slice(i, i + chunk);
    const child = fork(fileURLToPath(import.meta.url), [], {
      execArgv: ['--import', 'tsx'],
      env: { ...process.env, [CHILD_FLAG]: '1' },
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    const results = await new Promise<Result[]>((resolve, reject) => {
      child.once('message', (m) => resolve(m as Result[]));
      child.once('exit', (code) => reject(new Error(`readability child exited with ${code}`)));
      child.send(part);
    });
    child.kill();
    out.push(...results);
  }
  return out;
}

function child(): void {
  process.once('message', (jobs: Job[]) => {
    const results = jobs.map((job): Result => {
      const html = readHtml(job.path);
      const start = performance.now();
      let text: string | null = null;
      try {
        text = readability(html, job.url);
      } catch {
        text = null;
      }
      return { text, ms: performance.now() - start };
    });
    process.send?.(results, () => process.exit(0));
  });
}

if (process.env[CHILD_FLAG]) child();
