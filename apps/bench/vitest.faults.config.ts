import { defineConfig } from 'vitest/config';

// The fault-injection suite: bounded by default (CI), one file at a time; FAULT_SCALE=full for
// the long form, two files at a time (the kill file's work is in its child processes, the fuzz
// files' in their own worker). faultTotals.ts prints the totals over every file at the end.
const full = process.env.FAULT_SCALE === 'full';

export default defineConfig({
  test: {
    include: ['src/faults/**/*.test.ts'],
    globalSetup: ['src/faults/faultTotals.ts'],
    environment: 'node',
    testTimeout: full ? 3_600_000 : 900_000,
    hookTimeout: 120_000,
    pool: 'forks',
    fileParallelism: full,
    maxWorkers: full ? 2 : 1,
  },
});
