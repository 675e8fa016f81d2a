import { getTsupConfig } from '../../tooling/tsup.config.js';

export default getTsupConfig({ bench: 'src/bench.ts', faultTeam: 'src/faults/faultTeam.ts', faultStorage: 'src/faults/faultStorage.ts', faultSteps: 'src/faults/faultSteps.ts', workersBenchWorker: 'src/workersBenchWorker.ts' });
