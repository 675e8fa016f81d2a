import { mergeConfig } from 'vitest/config';
import { getVitestConfig } from '../../tooling/vitest.config.js';

export default mergeConfig(getVitestConfig({ testTimeout: 120_000 }), { test: { globalSetup: ['./test/globalSetup.ts'] } });
