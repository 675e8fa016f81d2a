// A writer of the crash test (`killWritersMidAppend` in @roundtable/test-utils/harness): appends
// batches until it is killed. Usage: crashWorker.mjs <connection string> <name> <streams>
import process from 'node:process';
import { appendBatchesUntilKilled } from '@roundtable/test-utils/workers';
import { createPostgresStorage } from '../../dist/index.js';

const [connectionString = '', name = '', streamList = ''] = process.argv.slice(2);
const storage = createPostgresStorage({ connectionString, maxConnections: 1 });
await storage.ready();
await appendBatchesUntilKilled(storage, { name, streamIds: streamList.split(','), fillerBytes: 2000 });
