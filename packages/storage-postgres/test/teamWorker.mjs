// Runs (or recovers) a four-member team on PostgreSQL until it finishes, then prints its result
// and saved messages as one JSON line. The kill test SIGKILLs it at random moments.
// Usage: teamWorker.mjs <connection string | memory> <run id> <turns>
import process from 'node:process';
import { compileGraph, foldStream, teamGraphType, teamMessages } from '@roundtable/graph';
import { createGraphExecutor } from '@roundtable/scheduler';
import { createMemoryStorage } from '@roundtable/storage-memory';
import { createPostgresStorage } from '../dist/index.js';

const [connectionString = '', runId = 'team-run', turnsText = '8'] = process.argv.slice(2);
const turns = Number(turnsText);
const MEMBERS = ['ana', 'bo', 'cy', 'di'];

const graph = compileGraph(teamGraphType, {
  id: 'kill-team',
  definitionVersion: 1,
  data: {
    task: 'Pass the count around.',
    globalConcurrency: 2,
    maxTurnsPerMember: turns,
    communication: { rooms: [{ id: 'all', members: MEMBERS }, { id: 'pair', members: ['ana', 'bo'] }], tailMessages: 3 },
  },
  nodes: MEMBERS.map((id, i) => ({ id, data: { role: `member ${i}`, brief: 'Count on.', initialTurn: i < 2 } })),
  edges: [],
});

/**
 * Deterministic: the result depends only on the turn's input, so a re-run attempt says the same.
 * @param {string} self
 * @returns {(ctx: { input: import('@roundtable/graph').TeamDispatchInput; position: string }) => import('@roundtable/graph').TeamTurnResult}
 */
function member(self) {
  return ({ input, position }) => {
    const turn = Number(position.split('/').at(-1));
    const next = MEMBERS[(MEMBERS.indexOf(self) + 1) % MEMBERS.length] ?? self;
    if (turn >= turns) return { summary: `${self} done after ${input.messages.length} messages` };
    const posts = [{ roomId: 'all', text: `${self}#${turn} saw ${input.messages.length}`, mentions: [next] }];
    if (self === 'ana' || self === 'bo') posts.push({ roomId: 'pair', text: `${self} to pair #${turn}`, mentions: [] });
    return { summary: `${self} turn ${turn}`, posts };
  };
}

const storage = connectionString === 'memory' ? createMemoryStorage() : createPostgresStorage({ connectionString, maxConnections: 2 });
/** @type {Record<string, import('@roundtable/scheduler').NodeBinding>} */
const nodes = Object.fromEntries(MEMBERS.map((id, i) => [id, { run: /** @type {import('@roundtable/scheduler').NodeRun} */ (/** @type {unknown} */ (member(id))), retrySafe: i % 2 === 0 }]));
const executor = await createGraphExecutor({ runId, graph, storage, nodes });
process.stdout.write('ready\n');

/** @param {unknown} request */
function isReconcile(request) {
  return typeof request === 'object' && request !== null && /** @type {{ kind?: unknown }} */ (request).kind === 'reconcile-attempt';
}
let result = await executor.run();
for (;;) {
  if (result.kind === 'waiting') result = await executor.resume(result.positions[0] ?? '');
  else if (result.kind === 'pause' && isReconcile(result.request)) result = await executor.resume(result.position ?? '', { value: 'again' });
  else break;
}
const folder = await foldStream(storage, runId, { graph });
await storage.close();
process.stdout.write(`${JSON.stringify({ result, messages: teamMessages(folder.state) })}\n`);
