import { getVitestConfig } from '../../tooling/vitest.config.js';

export default getVitestConfig();
