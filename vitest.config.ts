import { defineConfig } from 'vitest/config';

// Two groups, one after the other: the suite, two files at a time; then the drills of test/drills/,
// one file at a time, since they start several service processes each and restart or break the
// real PostgreSQL and NATS. Both fit in PostgreSQL's default of 100 connections (TEST_POOLS in
// test/fixtures/server.ts) and in two cores.
export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    reporters: ['default'],
    projects: [
      {
        extends: true,
        test: {
          name: 'suite',
          include: ['test/**/*.test.ts', 'packages/client/test/**/*.test.ts'],
          exclude: ['test/drills/**'],
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'drills',
          include: ['test/drills/**/*.test.ts'],
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
