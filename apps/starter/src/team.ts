// Your own team: three members in one room, in a TypeScript file that runs directly.
// Run it with `pnpm starter` from the repository root; `pnpm new-team <name>` copies it to
// apps/<name> to start your own program (see "Your own team" in the root README). Members here are plain functions; swap in
// model-backed members when you are ready.
import { compileGraph, createGraphExecutor, projectTeamRooms, teamGraphType, teamMembers, teamOutput } from '@roundtable/runtime';
import { readFile } from 'node:fs/promises';
import { createFsStorage } from '@roundtable/storage-fs';

// Passing the definition literal straight to compileGraph lets TypeScript see the member ids,
// so a misspelled binding key below is a compile error.
const graph = compileGraph(teamGraphType, {
  id: 'trip-team',
  definitionVersion: 1,
  data: {
    task: 'Plan a day trip to the coast.',
    globalConcurrency: 1,
    maxTurnsPerMember: 2,
    communication: { rooms: [{ id: 'planning', members: ['planner', 'researcher', 'writer'] }], tailMessages: 5 },
  },
  nodes: [
    { id: 'planner', data: { role: 'planner', brief: 'Ask the researcher for facts, then hand over to the writer.' } },
    { id: 'researcher', data: { role: 'researcher', brief: 'Answer the planner with facts.', initialTurn: false } },
    { id: 'writer', data: { role: 'writer', brief: 'Write the final plan once a person approves.', initialTurn: false } },
  ],
  edges: [],
});

// ctx.input is a TeamDispatchInput and each result a TeamTurnResult: no casts.
const nodes = teamMembers(graph, {
  planner: ({ input }) =>
    input.turn === 1
      ? { summary: 'Asked for facts.', posts: [{ roomId: 'planning', text: 'When is low tide, and which trains go?', mentions: ['researcher'] }] }
      : { summary: 'Handed over.', posts: [{ roomId: 'planning', text: 'Thanks. Please write the plan.', mentions: ['writer'] }] },
  researcher: ({ input }) => ({
    summary: 'Found the facts.',
    posts: [{ roomId: 'planning', text: `Low tide is at 11:40; trains leave at 08:10 and 09:10. (You asked in ${input.triggers.join(', ')}.)`, mentions: ['planner'] }],
  }),
  writer: {
    // Ask a person first. decideAction runs again on the resumed attempt, so check that this
    // attempt answers our own question before going ahead (a crash-recovery pause has
    // request.kind 'reconcile-attempt' instead).
    decideAction: (ctx) =>
      ctx.pause?.reason === 'Approve the trip?' && ctx.resume !== null
        ? { kind: 'allow' }
        : { kind: 'wait', reason: 'Approve the trip?', request: { question: 'Write up the plan?', options: ['yes', 'no'] } },
    run: ({ input, resume }) => ({
      summary: `Plan (approved: ${JSON.stringify(resume)}): ${input.messages.filter((message) => message.sender === 'researcher').at(-1)?.text ?? 'no facts'}`,
    }),
  },
});

const storage = createFsStorage({ directory: '.roundtable/record' });
const runId = `trip-${new Date().toISOString().replace(/[:.]/g, '-')}`;
try {
  const executor = await createGraphExecutor({ runId, graph, storage, nodes });
  let result = await executor.run();
  if (result.kind === 'pause' && result.position !== null) {
    console.log(`Paused at ${result.position}: ${result.reason} ${JSON.stringify(result.request)}; answering "yes".`);
    result = await executor.resume(result.position, { value: 'yes' });
  }
  const output = teamOutput(result);
  if (output === null) throw new Error(`The run did not complete: ${JSON.stringify(result)}`);
  console.log(`\nRun ${runId} completed. Final answers:`);
  for (const agent of output.agents) console.log(`  ${agent.name}: ${agent.result?.summary ?? '(no turn)'}`);
  const { files } = await projectTeamRooms({ storage, runId, directory: '.roundtable/rooms' });
  for (const file of files) console.log(`\nRoom ${file.roomId} (${file.path}):\n${await readFile(file.path, 'utf8')}`);
} finally {
  await storage.close();
}
