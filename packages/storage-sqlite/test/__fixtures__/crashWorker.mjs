// A writer of the crash test (`killWritersMidAppend` in @roundtable/test-utils/harness): appends
// batches until it is killed. Usage: crashWorker.mjs <database file> <name> <streams> <full|normal> <busy timeout ms>
import process from 'node:process';
import { appendBatchesUntilKilled } from '@roundtable/test-utils/workers';
import { createSqliteStorage } from '../../dist/index.js';

const [filename = '', name = '', streamList = '', synchronous = 'full', busyTimeoutMs = '5000'] = process.argv.slice(2);
const storage = createSqliteStorage({ filename, synchronous: synchronous === 'normal' ? 'normal' : 'full', busyTimeoutMs: Number(busyTimeoutMs) });
await appendBatchesUntilKilled(storage, { name, streamIds: streamList.split(','), fillerBytes: 200 });
