import { defineConfig } from 'vitest/config';

// The fault-injection suite: bounded by default (CI); FAULT_SCALE=full for the long form.
export default defineConfig({
  test: {
    include: ['src/faults/**/*.test.ts'],
    environment: 'node',
    testTimeout: 900_000,
    hookTimeout: 120_000,
    pool: 'forks',
    fileParallelism: false,
  },
});
