import { getTsupConfig } from '../../tooling/tsup.config.js';

export default getTsupConfig(['src/index.ts', 'src/adapter.ts', 'src/conformance.ts']);
