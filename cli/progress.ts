/**
 * A job's progress on standard error: a live bar (cli-progress) when standard error is a
 * terminal — done of total, rate, ETA, errors — and plain lines when it is not (a log, a pipe),
 * one each time a count changes. The rate and ETA are computed from the clock given (a test's
 * or the process's).
 */
import { SingleBar } from 'cli-progress';

export interface Counts {
  readonly done: number;
  readonly total: number;
  readonly errors: number;
  readonly status: string;
}

export interface Progress {
  update(counts: Counts): void;
  /** Stops drawing (the bar is left as last drawn) before a question or the end. */
  pause(): void;
  resume(): void;
  stop(): void;
}

export interface ProgressOptions {
  /** `crawl 0190…`: what the line is about. */
  readonly label: string;
  /** What is counted: `pages`, `leads`. */
  readonly unit: string;
  readonly tty: boolean;
  readonly stream: NodeJS.WritableStream;
  readonly now?: () => number;
}

function seconds(s: number): string {
  if (!Number.isFinite(s) || s < 0) return '?';
  if (s < 60) return `${Math.round(s)}s`;
  const m = Math.floor(s / 60);
  return m < 60 ? `${m}m${String(Math.round(s % 60)).padStart(2, '0')}s` : `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}

/** Rate (per second) and ETA text from counts and elapsed milliseconds. */
export function rateAndEta(done: number, total: number, elapsedMs: number): { rate: string; eta: string } {
  const rate = elapsedMs > 0 ? (done * 1000) / elapsedMs : 0;
  return { rate: rate.toFixed(1), eta: done >= total ? '0s' : rate > 0 ? seconds((total - done) / rate) : '?' };
}

export function createProgress(options: ProgressOptions): Progress {
  const now = options.now ?? Date.now;
  const started = now();
  let last = '';
  let current: Counts = { done: 0, total: 0, errors: 0, status: 'starting' };
  // `left`, not `eta`: cli-progress computes its own `eta` from the bar's values, which a
  // total that grows (a crawl finding links) makes wrong.
  const values = (c: Counts) => {
    const { rate, eta } = rateAndEta(c.done, Math.max(c.total, c.done), now() - started);
    return { rate, left: eta, errors: c.errors, status: c.status, unit: options.unit };
  };
  if (!options.tty) {
    const line = (c: Counts) => {
      const { rate, left } = values(c);
      return `${options.label}: ${c.status}, ${c.done}/${c.total} ${options.unit}, ${rate} ${options.unit}/s, ETA ${left}, ${c.errors} errors`;
    };
    return {
      update(c) {
        current = c;
        const key = `${c.status} ${c.done} ${c.total} ${c.errors}`;
        if (key === last) return;
        last = key;
        options.stream.write(`${line(c)}\n`);
      },
      pause: () => undefined,
      resume: () => undefined,
      stop: () => undefined,
    };
  }
  const bar = new SingleBar({
    stream: options.stream,
    format: `${options.label} {bar} {value}/{total} {unit} | {rate} {unit}/s | ETA {left} | {errors} errors | {status}`,
    barsize: 24,
    hideCursor: true,
    clearOnComplete: false,
    stopOnComplete: false,
    // Drawn on each update (no timer of its own), and always, a terminal being the point.
    noTTYOutput: true,
    fps: 10,
  });
  let running = false;
  const start = () => {
    bar.start(Math.max(current.total, current.done, 1), current.done, values(current));
    running = true;
  };
  return {
    update(c) {
      current = c;
      if (!running) start();
      bar.setTotal(Math.max(c.total, c.done, 1));
      bar.update(c.done, values(c));
    },
    pause() {
      if (running) bar.stop();
      running = false;
    },
    resume() {
      options.stream.write('\n');
      start();
    },
    stop() {
      if (!running) start();
      bar.update(current.done, values(current));
      bar.stop();
      running = false;
    },
  };
}
