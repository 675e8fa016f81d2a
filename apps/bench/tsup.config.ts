import { getTsupConfig } from '../../tooling/tsup.config.js';

export default getTsupConfig({ bench: 'src/bench.ts', faultTeam: 'src/faults/faultTeam.ts', faultStorage: 'src/faults/faultStorage.ts', workersBenchWorker: 'src/workersBenchWorker.ts' });
