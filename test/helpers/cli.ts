/**
 * The command line (`main.ts <command>`, as `npx web-data-service <command>` runs it) in a
 * child process: with pipes (standard output and error apart, neither a terminal), or in a
 * real pseudo-terminal through util-linux `script` (package bsdutils), 120 columns wide,
 * where standard input, output and error are all the terminal and its output is one stream.
 * In the terminal, `send` types on the keyboard (`\x03` is Ctrl-C, which the terminal turns
 * into SIGINT for the command).
 */
import { spawn } from 'node:child_process';
import { cleanEnv, REPO_ROOT, watch } from './process.js';

export interface CliRun {
  /** Standard output (in a terminal: everything the terminal showed). */
  stdout(): string;
  stderr(): string;
  /** Types `text` on the terminal (or writes it to standard input). */
  send(text: string): void;
  /** Sends a signal to the command (without a terminal: its process; in one, `script`, which passes it on). */
  signal(name: NodeJS.Signals): void;
  /** Resolves with the first match of `pattern` in the output; rejects after `timeoutMs` or at the exit. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** The exit code. */
  readonly exited: Promise<number>;
}

export interface CliOptions {
  readonly env?: Record<string, string>;
  /** Run in a pseudo-terminal. */
  readonly tty?: boolean;
}

const quote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

export function startCli(args: readonly string[], options: CliOptions = {}): CliRun {
  const node = [process.execPath, '--import', 'tsx', 'main.ts', ...args];
  const env = cleanEnv({ TERM: 'xterm-256color', ...options.env });
  // `exec`: the command itself is the terminal's foreground process, so Ctrl-C reaches it alone.
  const child = options.tty
    ? spawn('script', ['-qefc', `stty cols 120 rows 40; exec ${node.map(quote).join(' ')}`, '/dev/null'], { cwd: REPO_ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] })
    : spawn(node[0] as string, node.slice(1), { cwd: REPO_ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] });
  const run = watch(child, `web-data-service ${args.join(' ')}`, false);
  const exited = run.exited.then((exit) => {
    child.stdin?.end();
    return exit.code ?? (exit.signal ? 128 : -1);
  });
  return {
    stdout: run.stdout,
    stderr: run.stderr,
    send: (text) => void child.stdin?.write(text),
    signal: (name) => void child.kill(name),
    exited,
    waitFor: (pattern, timeoutMs = 60_000) => run.waitFor(pattern, timeoutMs),
  };
}

/** Runs the command line to its end. */
export async function runCli(args: readonly string[], options: CliOptions = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const run = startCli(args, options);
  const code = await run.exited;
  return { code, stdout: run.stdout(), stderr: run.stderr() };
}
