import { getVitestConfig } from '../../tooling/vitest.config.js';

// A hang guard for the slowest command (the workers example starts PostgreSQL and three workers).
// One file at a time: a README command's build (turbo) may rewrite dist/ files from its cache,
// which the snippets' type check reads.
export default getVitestConfig({ testTimeout: 600_000, fileParallelism: false });
