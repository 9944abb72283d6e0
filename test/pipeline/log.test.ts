/**
 * pipeline/runtime/log.ts's standard-output logger holds lines and writes them in batches: a line
 * still goes out within the flush interval when nothing else is logged, and what is pending
 * when the process exits (process.exit included) is written, so a fatal line is never lost.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

function runNode(script: string): { stdout: string; status: number | null } {
  const result = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: new URL('../..', import.meta.url),
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { stdout: result.stdout, status: result.status };
}

const lines = (stdout: string) => stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);

describe('pipeline/runtime/log standard output', () => {
  it('writes pending lines when the process exits, also through process.exit', () => {
    const { stdout, status } = runNode(`
      import { createLogger } from './pipeline/runtime/log.ts';
      const log = createLogger('info');
      for (let i = 0; i < 3; i++) log.info({ i }, 'line');
      log.fatal({ code: 'x' }, 'could not start');
      process.exit(3);
    `);
    expect(status).toBe(3);
    expect(lines(stdout).map((l) => l.msg)).toEqual(['line', 'line', 'line', 'could not start']);
  });

  it('writes a lone line within the flush interval while the process keeps running', () => {
    const { stdout, status } = runNode(`
      import { createLogger } from './pipeline/runtime/log.ts';
      const log = createLogger('info');
      log.info('lone line');
      // Standard output is a pipe read by the parent only at the end: record what was
      // written by then in a second line, after the interval has passed.
      setTimeout(() => { process.stdout.write('\\nTICK\\n'); process.exit(0); }, 400);
    `);
    expect(status).toBe(0);
    const lone = stdout.indexOf('lone line');
    expect(lone).toBeGreaterThanOrEqual(0);
    // Written by the interval, before the direct write that follows it.
    expect(lone).toBeLessThan(stdout.indexOf('TICK'));
    expect(lines(stdout).map((l) => l.msg)).toEqual(['lone line']);
  });

  it('shares one destination between loggers, so lines keep their order', () => {
    const { stdout } = runNode(`
      import { createLogger } from './pipeline/runtime/log.ts';
      const a = createLogger('info');
      const b = createLogger('info');
      for (let i = 0; i < 50; i++) (i % 2 ? b : a).info({ i }, 'n');
    `);
    expect(lines(stdout).map((l) => l.i)).toEqual(Array.from({ length: 50 }, (_, i) => i));
  });
});
