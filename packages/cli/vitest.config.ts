import { getVitestConfig } from '../../tooling/vitest.config.js';

// A hang guard only: a test here starts the built binary many times, seconds each on a busy machine.
export default getVitestConfig({ testTimeout: 600_000 });
