// A child process of the fault suite: runs (or recovers) the fault team on a durable adapter
// until it finishes, then projects its rooms and reads its saved messages. It prints `step <n>`
// after each durable write (faultSteps.ts); the parent kills it with SIGKILL on a random step
// (killOnSteps.ts). Usage: faultWorker.mjs <fs|sqlite|postgres|memory> <record path or
// connection string> <rooms dir> <turns> [run id]
import { readFile } from 'node:fs/promises';
import { foldStream, teamMessages } from '@roundtable/graph';
import { projectTeamRooms } from '@roundtable/rooms';
import { createGraphExecutor } from '@roundtable/scheduler';
import { runToEnd } from '@roundtable/test-utils/workers';
import { FAULT_RUN_ID, MEMBERS, faultGraph, faultMember } from '../../dist/faultTeam.js';
import { openFaultStorage } from '../../dist/faultStorage.js';
import { reportingSteps } from '../../dist/faultSteps.js';

const [kind, path, roomsDir, turnsText, runId = FAULT_RUN_ID] = process.argv.slice(2);
const turns = Number(turnsText);

const { storage, step } = reportingSteps(await openFaultStorage(kind, path));
const graph = faultGraph(turns);
const nodes = Object.fromEntries(MEMBERS.map((id, i) => [id, { run: faultMember(id, turns), retrySafe: i % 2 === 0 }]));
const executor = await createGraphExecutor({ runId, graph, storage, nodes });
const result = await runToEnd(executor, 'again');
step();
const { files } = await projectTeamRooms({ storage, runId, directory: roomsDir });
step();
const rooms = await Promise.all(files.map(async (file) => ({ roomId: file.roomId, text: await readFile(file.path, 'utf8') })));
const folder = await foldStream(storage, runId, { graph });
await storage.close();
process.stdout.write(`${JSON.stringify({ result, rooms, messages: teamMessages(folder.state) })}\n`);
