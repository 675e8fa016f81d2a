// Writes a real run record with the real executor, for the CLI's tests (run as a child process).
// Usage: node writeRecord.mjs <fs|sqlite|postgres> <path or connection string> <runId> <scenario> [namespace]
//   seed     the demo's conversation: writer, reviewer, writer; complete (3 turns)
//   reject   as seed, but the reviewer rejects (run on a fork of a seed run, it runs what the fork left)
//   paused   the reviewer's decideAction waits for approval: paused
//   failed   the reviewer throws: failed TEAM_NODE_FAILED
//   waiting  the reviewer's attempt starts and never ends; prints "in-attempt" (the test SIGKILLs it)
//   cancellable the reviewer's attempt starts, prints "in-attempt" and ends only when its signal
//            aborts (a cancel from another process); the run's result kind is printed
//   hostile  messages with <script> and terminal escapes, in two rooms; complete
//   resume   resumes the paused run written by `paused` (approved): the reviewer replies, then complete
//   serve    as `paused`, but `executor.serve()` holds the run: it prints "serving" once paused and
//            goes on when another process answers or cancels; prints the result kind and the
//            values the reviewer's attempts were given
//   long     the seed conversation with a 220 kB draft: more output than a pipe holds, twice over
//   controls the writer's post holds C1 controls, DEL, U+2028, bidi and zero-width characters; the
//            reviewer's first attempt posts to an undeclared room named with them (retried
//            RESULT_INVALID), its second replies; complete
import { compileGraph, teamGraphType } from '@roundtable/graph';
import { createGraphExecutor } from '@roundtable/scheduler';
import { createFsStorage } from '@roundtable/storage-fs';
import { createSqliteStorage } from '@roundtable/storage-sqlite';
import { seedTeam } from '@roundtable/test-utils';

const [adapter, path, runId, scenario, namespace = 'default'] = process.argv.slice(2);
const storage =
  adapter === 'fs'
    ? createFsStorage({ directory: String(path), namespace })
    : adapter === 'postgres'
      ? (await import('@roundtable/storage-postgres')).createPostgresStorage({ connectionString: String(path), namespace })
      : createSqliteStorage({ filename: String(path), namespace });

const rooms = scenario === 'hostile'
  ? [{ id: 'review', members: ['writer', 'reviewer'] }, { id: 'side', members: ['writer'] }]
  : [{ id: 'review', members: ['writer', 'reviewer'] }];
const graph = compileGraph(teamGraphType, seedTeam({ rooms }));

const HOSTILE = '<script>window.pwned = true</script> \u001b[31mred\u001b[0m <img src=x onerror="window.pwned=true">';
const CONTROLS = 'csi \u009b31m del \u007f nel \u0085 ls \u2028 ps \u2029 rlo \u202eevil\u202c lri \u2066x\u2069 zwj a\u200db bom \ufeff tag \u{e0041}';
const writer = ({ input }) => {
  if (input.result !== null) return { summary: `Done: ${input.messages.at(-1)?.text ?? ''}` };
  const texts = { hostile: HOSTILE, controls: CONTROLS, long: 'long draft '.repeat(20_000) };
  const text = texts[scenario] ?? 'Please review the draft.';
  const posts = [{ roomId: 'review', text, mentions: ['reviewer'] }];
  if (scenario === 'hostile') posts.push({ roomId: 'side', text: 'note\nto self', mentions: [] });
  return { summary: 'Draft ready.', posts };
};
const given = [];
const reply = () => ({ summary: 'Reviewed.', posts: [{ roomId: 'review', text: 'Approved: ship it.', mentions: ['writer'] }] });
const reviewers = {
  seed: reply,
  reject: () => ({ summary: 'Rejected.', posts: [{ roomId: 'review', text: 'Rejected: the tests fail.', mentions: ['writer'] }] }),
  long: reply,
  hostile: reply,
  failed: () => {
    throw new Error('the reviewer crashed');
  },
  paused: { run: reply, decideAction: ({ resume }) => (resume === null ? { kind: 'wait', reason: 'needs approval', request: { question: 'Ship the notes?' } } : { kind: 'allow' }) },
  controls: {
    run: (ctx) => (ctx.attempt === 1 ? { summary: 'Oops.', posts: [{ roomId: `lobby\u009b2J\u202e`, text: 'wrong room', mentions: [] }] } : reply()),
    retry: { maxAttempts: 2 },
  },
  serve: {
    run: (ctx) => {
      given.push(ctx.resume);
      return reply();
    },
    decideAction: ({ resume }) => {
      if (resume === null) setImmediate(() => process.stdout.write('serving\n'));
      return resume === null ? { kind: 'wait', reason: 'needs approval', request: { question: 'Ship the notes?' } } : { kind: 'allow' };
    },
  },
  resume: { run: reply, decideAction: ({ resume }) => (resume === null ? { kind: 'wait', reason: 'needs approval', request: { question: 'Ship the notes?' } } : { kind: 'allow' }) },
  waiting: async () => {
    process.stdout.write('in-attempt\n');
    await new Promise(() => {});
  },
  cancellable: async ({ signal }) => {
    process.stdout.write('in-attempt\n');
    // Holds the process open as a model call's socket would: a change watch does not.
    const alive = setInterval(() => {}, 1000);
    await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
    clearInterval(alive);
    throw new Error('stopped by the cancel');
  },
};

const executor = await createGraphExecutor({ runId, graph, storage, nodes: { writer, reviewer: reviewers[scenario] } });
const result =
  scenario === 'resume' ? await executor.resume('team/reviewer/1', { value: { approved: true } }) : scenario === 'serve' ? await executor.serve() : await executor.run();
await storage.close();
process.stdout.write(`${JSON.stringify(scenario === 'serve' ? { kind: result.kind, given } : { kind: result.kind })}\n`);
