/**
 * Subprocesses for tests: run a TypeScript entry point (`main.ts`, the keys CLI) in its own
 * Node process through tsx, or a command line as the README writes it; collect everything it writes, wait for a line with a bounded
 * timeout, and stop it for sure. Every setting of pipeline/runtime/config.ts is removed from the
 * inherited environment, so a test sees only the settings it passes.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SETTINGS } from '../../pipeline/service/config.js';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** The parent's environment without any service setting, plus `env`. */
export function cleanEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...process.env };
  for (const spec of Object.values(SETTINGS)) delete out[spec.env];
  return { ...out, ...env };
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface Spawned {
  readonly child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the first match of `pattern` in stdout; rejects after `timeoutMs` or on exit. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  readonly exited: Promise<Exit>;
  /** SIGTERM, then SIGKILL if it has not exited within `graceMs`. */
  stop(graceMs?: number): Promise<Exit>;
}

/** Starts `node ...nodeFlags --import tsx <entry> ...args` in the repository root. */
export function spawnTs(entry: string, args: string[], env: Record<string, string>, nodeFlags: readonly string[] = []): Spawned {
  const child = spawn(process.execPath, [...nodeFlags, '--import', 'tsx', entry, ...args], {
    cwd: REPO_ROOT,
    env: cleanEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return watch(child, entry, false);
}

/**
 * Runs `command` as a newcomer types it (`sh -c`, in the repository root) in a process group of
 * its own, so `stop()` signals every process it started (npm, then node), as a terminal's
 * Ctrl-C or a service manager does.
 */
export function spawnCommand(command: string, env: Record<string, string>): Spawned {
  const child = spawn('sh', ['-c', command], { cwd: REPO_ROOT, env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  return watch(child, command, true);
}

/** Collects what `child` writes and answers waits on it; `group`: signal its process group. */
export function watch(child: ChildProcess, entry: string, group: boolean): Spawned {
  const signal = (name: NodeJS.Signals) => {
    if (group && child.pid) {
      try {
        process.kill(-child.pid, name);
      } catch {
        /* the group is gone */
      }
    } else {
      child.kill(name);
    }
  };
  let out = '';
  let err = '';
  const listeners = new Set<() => void>();
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
    for (const l of listeners) l();
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    err += chunk;
  });
  let exit: Exit | null = null;
  const exited = new Promise<Exit>((resolveExit) => {
    child.once('exit', (code, signal) => {
      exit = { code, signal };
      for (const l of listeners) l();
      resolveExit(exit);
    });
  });

  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    waitFor(pattern, timeoutMs = 15000) {
      return new Promise((resolveMatch, reject) => {
        const check = () => {
          const match = pattern.exec(out);
          if (match) return done(() => resolveMatch(match));
          if (exit) {
            return done(() =>
              reject(new Error(`${entry} exited (${JSON.stringify(exit)}) before printing ${pattern}\nstdout:\n${out}\nstderr:\n${err}`)),
            );
          }
        };
        const timer = setTimeout(
          () => done(() => reject(new Error(`${entry} did not print ${pattern} within ${timeoutMs} ms\nstdout:\n${out}\nstderr:\n${err}`))),
          timeoutMs,
        );
        const done = (settle: () => void) => {
          clearTimeout(timer);
          listeners.delete(check);
          settle();
        };
        listeners.add(check);
        check();
      });
    },
    async stop(graceMs = 5000) {
      if (exit) return exit;
      signal('SIGTERM');
      const timer = setTimeout(() => signal('SIGKILL'), graceMs);
      try {
        return await exited;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

export interface RunResult extends Exit {
  stdout: string;
  stderr: string;
}

/** Runs an entry point to completion (killed after `timeoutMs`). */
export async function runTs(entry: string, args: string[], env: Record<string, string>, timeoutMs = 15000): Promise<RunResult> {
  const proc = spawnTs(entry, args, env);
  const timer = setTimeout(() => proc.child.kill('SIGKILL'), timeoutMs);
  try {
    const exit = await proc.exited;
    return { ...exit, stdout: proc.stdout(), stderr: proc.stderr() };
  } finally {
    clearTimeout(timer);
  }
}

export interface Server extends Spawned {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
}

/** Starts main.ts on 127.0.0.1 and a free port and waits until it listens. */
export async function startServer(env: Record<string, string>, timeoutMs = 20000): Promise<Server> {
  const proc = spawnTs('main.ts', [], { HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', ...env });
  try {
    const match = await proc.waitFor(/listening on (http:\/\/[\w.:-]+)\n/, timeoutMs);
    // Everything main.ts prints at start-up (the key, if any) follows the reference line.
    await proc.waitFor(/API reference: \S+\n/, timeoutMs);
    return Object.assign(proc, { url: match[1] as string });
  } catch (error) {
    await proc.stop();
    throw error;
  }
}

/** True while `pid` runs (a stopped process or an unreaped zombie counts; a reaped one does not). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The processes of process group `pgid` (Linux /proc), each with its command line. */
export function processGroup(pgid: number): { pid: number; argv: string[] }[] {
  const out: { pid: number; argv: string[] }[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // /proc/PID/stat: "pid (comm) state ppid pgrp …"; comm may hold spaces and parentheses.
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) !== pgid) continue;
      const argv = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').filter(Boolean);
      out.push({ pid: Number(name), argv });
    } catch {
      /* the process ended meanwhile */
    }
  }
  return out;
}
