import { getVitestConfig } from '../../tooling/vitest.config.js';

// A hang guard for the slowest command (the workers example starts PostgreSQL and three workers).
export default getVitestConfig({ testTimeout: 600_000 });
