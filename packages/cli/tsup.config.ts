import { getTsupConfig } from '../../tooling/tsup.config.js';

export default getTsupConfig({ index: 'src/index.ts', main: 'src/main.ts', viewerClient: 'src/view/viewerClient.ts' });
