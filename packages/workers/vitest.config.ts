import { mergeConfig } from 'vitest/config';
import { getVitestConfig } from '../../tooling/vitest.config.js';

export default mergeConfig(getVitestConfig(), { test: { globalSetup: ['./test/globalSetup.ts'] } });
