// A racer of the cross-process test (`raceTwoProcesses` in @roundtable/test-utils/harness).
// Usage: raceWorker.mjs <connection string> <name>
import process from 'node:process';
import { serveRaceCommands } from '@roundtable/test-utils/workers';
import { createPostgresStorage } from '../../dist/index.js';

const [connectionString = '', name = ''] = process.argv.slice(2);
const storage = createPostgresStorage({ connectionString, maxConnections: 2 });
await storage.ready();
serveRaceCommands(storage, name);
