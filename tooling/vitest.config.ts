import { defineConfig } from 'vitest/config';

/** The test config every package shares; a package passes only what differs. */
export function getVitestConfig(options: { testTimeout?: number; fileParallelism?: boolean } = {}) {
  return defineConfig({
    test: {
      include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
      environment: 'node',
      // A hang guard, never a timing assertion: CI runs many suites at once on two cores.
      testTimeout: options.testTimeout ?? 120_000,
      hookTimeout: 60_000,
      pool: 'forks',
      fileParallelism: options.fileParallelism ?? true,
    },
  });
}
