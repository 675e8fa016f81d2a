import { getTsupConfig } from '../../tooling/tsup.config.js';

export default getTsupConfig(['src/main.ts', 'src/worker.ts']);
