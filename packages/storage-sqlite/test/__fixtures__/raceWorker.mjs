// A racer of the cross-process test (`raceTwoProcesses` in @roundtable/test-utils/harness).
// Usage: raceWorker.mjs <database file> <name> <busy timeout ms>
import process from 'node:process';
import { serveRaceCommands } from '@roundtable/test-utils/workers';
import { createSqliteStorage } from '../../dist/index.js';

const [filename = '', name = '', busyTimeoutMs = '5000'] = process.argv.slice(2);
serveRaceCommands(createSqliteStorage({ filename, busyTimeoutMs: Number(busyTimeoutMs) }), name);
