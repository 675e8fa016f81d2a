// A child process of the fault suite: runs (or recovers) the fault team on a durable adapter
// until it finishes, then projects its rooms. The parent kills it with SIGKILL at random.
// Usage: faultWorker.mjs <fs|sqlite|memory> <record path> <rooms dir> <turns>
import { readFile } from 'node:fs/promises';
import { projectTeamRooms } from '@roundtable/rooms';
import { createGraphExecutor } from '@roundtable/scheduler';
import { FAULT_RUN_ID, MEMBERS, faultGraph, faultMember } from '../../dist/faultTeam.js';

const [kind, path, roomsDir, turnsText] = process.argv.slice(2);
const turns = Number(turnsText);

async function openStorage() {
  if (kind === 'memory') return (await import('@roundtable/storage-memory')).createMemoryStorage();
  if (kind === 'fs') return (await import('@roundtable/storage-fs')).createFsStorage({ directory: path });
  return (await import('@roundtable/storage-sqlite')).createSqliteStorage({ filename: path });
}

const storage = await openStorage();
const nodes = Object.fromEntries(MEMBERS.map((id, i) => [id, { run: faultMember(id, turns), retrySafe: i % 2 === 0 }]));
const executor = await createGraphExecutor({ runId: FAULT_RUN_ID, graph: faultGraph(turns), storage, nodes });
process.stdout.write('ready\n');
let result = await executor.run();
for (;;) {
  if (result.kind === 'waiting') result = await executor.resume(result.positions[0]);
  else if (result.kind === 'pause' && result.request?.kind === 'reconcile-attempt') result = await executor.resume(result.position, { value: 'again' });
  else break;
}
const { files } = await projectTeamRooms({ storage, runId: FAULT_RUN_ID, directory: roomsDir });
const rooms = await Promise.all(files.map(async (file) => ({ roomId: file.roomId, text: await readFile(file.path, 'utf8') })));
await storage.close();
process.stdout.write(`${JSON.stringify({ result, rooms })}\n`);
