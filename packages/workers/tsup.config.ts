import { getTsupConfig } from '../../tooling/tsup.config.js';

export default getTsupConfig();
