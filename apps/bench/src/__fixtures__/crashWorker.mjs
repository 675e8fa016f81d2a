// A child process for the scheduler's crash tests (crashRecovery.test.ts): runs (or recovers) a
// ping-pong team on a durable adapter until it finishes, or reports what the record holds. It
// prints `step <n>` after each durable write (faultSteps.ts); the parent kills it with SIGKILL
// on a random step (killOnSteps.ts). Usage: crashWorker.mjs <run|verify|both> <memory|fs|sqlite> <path>
// pong's first attempt of every third turn fails and is retried (SPEC 11.4), so kills also land
// between a graph:node-retried and the next attempt. With CRASH_SAY_RETRIED=1 the worker prints
// `retried` once a node-retried is durable (the parent kills it then); CRASH_BACKOFF_MS sets the
// retry backoff.
import { compileGraph, foldStream, teamGraphType, teamMessages } from '@roundtable/graph';
import { createGraphExecutor } from '@roundtable/scheduler';
import { delegateStorage } from '@roundtable/storage/adapter';
import { runToEnd } from '@roundtable/test-utils/workers';
import { openFaultStorage } from '../../dist/faultStorage.js';
import { reportingSteps } from '../../dist/faultSteps.js';

const [mode, kind, path] = process.argv.slice(2);
const RUN_ID = 'crash-run';
const TURNS = Number(process.env.CRASH_TURNS ?? 40);
const BACKOFF_MS = Number(process.env.CRASH_BACKOFF_MS ?? 2);

const graph = compileGraph(teamGraphType, {
  id: 'ping-pong',
  definitionVersion: 1,
  data: {
    task: 'Count together.',
    globalConcurrency: 2,
    maxTurnsPerMember: TURNS,
    communication: { rooms: [{ id: 'table', members: ['ping', 'pong'] }], tailMessages: 2 },
  },
  nodes: [
    { id: 'ping', data: { role: 'ping', brief: 'Say the next number.' } },
    { id: 'pong', data: { role: 'pong', brief: 'Say the next number.' } },
  ],
  edges: [],
});

function member(self, other, flaky) {
  return ({ input, position, attempt }) => {
    if (flaky && attempt === 1 && input.turn % 3 === 0) throw new Error(`${self} turn ${input.turn}: transient failure`);
    const last = input.messages.at(-1);
    const next = last ? Number(last.text.split(' ')[0]) + 1 : 1;
    const turn = Number(position.split('/').at(-1));
    if (turn >= TURNS) return { summary: `done at ${next}` };
    return { summary: `said ${next}`, posts: [{ roomId: 'table', text: `${next} from ${self}`, mentions: [other] }] };
  };
}
// ping's attempts are safe to repeat; pong's are not, so its crashes go through reconcile.
const nodes = {
  ping: { run: member('ping', 'pong', false), retrySafe: true },
  pong: { run: member('pong', 'ping', true), retry: { maxAttempts: 2, codes: ['EFFECT_FAILED'], backoffMs: BACKOFF_MS } },
};

const opened = await openFaultStorage(kind, path);
const { storage, step } = reportingSteps(process.env.CRASH_SAY_RETRIED === '1' ? sayingRetried(opened) : opened);

function sayingRetried(inner) {
  return delegateStorage(inner, {
    async append(streamId, expected, events) {
      const head = await inner.append(streamId, expected, events);
      if (events.some((event) => event.type === 'graph:node-retried')) process.stdout.write('retried\n');
      return head;
    },
  });
}

async function run() {
  const executor = await createGraphExecutor({ runId: RUN_ID, graph, storage, nodes });
  const result = await runToEnd(executor, 'run it again');
  step();
  return result;
}

async function verify() {
  const dispatched = [];
  const outcomes = {};
  const onEvent = ({ type, payload }) => {
    if (type === 'graph:node-dispatched') dispatched.push(payload.position);
    if (type === 'graph:node-completed' || type === 'graph:node-failed') outcomes[payload.position] = (outcomes[payload.position] ?? 0) + 1;
  };
  const folder = await foldStream(storage, RUN_ID, { graph, onEvent });
  return { messages: teamMessages(folder.state), dispatched, outcomes };
}

const result = mode === 'verify' ? await verify() : mode === 'both' ? { result: await run(), record: await verify() } : await run();
await storage.close();
process.stdout.write(`${JSON.stringify(result)}\n`);
