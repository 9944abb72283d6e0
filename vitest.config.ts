import { defineConfig } from 'vitest/config';

/**
 * The suites that must run alone: each starts a whole cluster (Kafka, a ClickHouse server, several
 * service processes), kills processes on purpose, measures memory or time limits, or drives a
 * terminal or a browser against deadlines. Run beside another heavy file on a 2-core machine they
 * would test the machine's contention, not the service. They run after the others, one at a time.
 */
export const SERIAL_SUITES = [
  'test/e2e/*.distributed.test.ts',
  'test/e2e/{cli,crawl-site,dashboard,document-limits,faults,hostile-input,hostile-patterns,jobs.kill,jobs-render,mentions.restart,monitors.restart,pipeline,quick-start,render}.test.ts',
];

export default defineConfig({
  test: {
    testTimeout: 30000,
    hookTimeout: 60000,
    pool: 'forks',
    reporters: ['default'],
    projects: [
      // Everything else, two files at a time: most of a file's time is its own process starting
      // and waiting on sockets, so two overlap well on two cores.
      {
        extends: true,
        test: { name: 'parallel', include: ['test/**/*.test.ts'], exclude: SERIAL_SUITES, maxWorkers: 2, sequence: { groupOrder: 0 } },
      },
      {
        extends: true,
        test: { name: 'serial', include: SERIAL_SUITES, maxWorkers: 1, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
