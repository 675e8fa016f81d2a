import { getTsupConfig } from '../../tooling/tsup.config.js';

export default getTsupConfig(['src/index.ts', 'src/harness.ts', 'src/workers.ts']);
