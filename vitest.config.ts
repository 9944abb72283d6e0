import { defineConfig } from 'vitest/config';

/**
 * Every file in its own forked process, two at a time on this 2-core machine: most of a file's
 * time is processes starting and waiting on sockets, so two overlap well. The heavy end-to-end
 * files (clusters of service processes, Chromium, killed processes) pass beside another file:
 * each waits on its own conditions with its own timeouts rather than on the clock, and was run
 * beside the others' work at load 20–30 on these two cores.
 */
export default defineConfig({
  test: {
    testTimeout: 30000,
    hookTimeout: 60000,
    pool: 'forks',
    maxWorkers: 2,
    reporters: ['default'],
  },
});
