// A child process for the racing-answers test (racingAnswers.test.ts): it holds one store open
// and, at the parent's word (IPC), starts a run of the asking team until it pauses, opens an
// executor on a run (folding what is there), or answers the run's pause with its own name. Its
// member appends one line per attempt it runs to a side file named after the run, so the
// parent counts real attempts, not records. Usage: answerWorker.mjs <fs|sqlite|postgres> <path> <name> <side folder>
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { compileGraph, teamGraphType } from '@roundtable/graph';
import { createGraphExecutor } from '@roundtable/scheduler';
import { openFaultStorage } from '../../dist/faultStorage.js';

const [kind = '', path = '', name = '', sides = ''] = process.argv.slice(2);
export const POSITION = 'team/asker/1';

const graph = compileGraph(teamGraphType, {
  id: 'ask-team',
  definitionVersion: 1,
  data: { task: 'Ask first.', globalConcurrency: 1, maxTurnsPerMember: 1, communication: { rooms: [{ id: 'room', members: ['asker'] }], tailMessages: 2 } },
  nodes: [{ id: 'asker', data: { role: 'asker', brief: 'Ask before acting.' } }],
  edges: [],
});

/** @param {string} runId */
const nodes = (runId) => ({
  asker: {
    /** @param {{ resume: unknown }} ctx */
    decideAction: (ctx) => (ctx.resume === null ? { kind: 'wait', reason: 'May I?', request: { ask: 'go?' } } : { kind: 'allow' }),
    /** @param {{ resume: unknown }} ctx */
    run: (ctx) => {
      appendFileSync(join(sides, runId), `${name} ${JSON.stringify(ctx.resume)}\n`);
      return { summary: `went with ${JSON.stringify(ctx.resume)}` };
    },
  },
});

const storage = await openFaultStorage(kind, path);
/** @type {Map<string, import('@roundtable/scheduler').GraphExecutor>} */
const executors = new Map();

/** @param {unknown} error */
const codeOf = (error) => (typeof error === 'object' && error !== null && typeof (/** @type {{ code?: unknown }} */ (error).code) === 'string' ? /** @type {{ code: string }} */ (error).code : String(error));

process.on('message', (/** @type {{ step: 'pause' | 'open' | 'answer', runId: string }} */ message) => {
  const { step, runId } = message;
  void (async () => {
    try {
      if (step === 'pause') {
        const result = await (await createGraphExecutor({ runId, graph, storage, nodes: nodes(runId) })).run();
        process.send?.({ step, outcome: result.kind });
      } else if (step === 'open') {
        executors.set(runId, await createGraphExecutor({ runId, graph, storage, nodes: nodes(runId) }));
        process.send?.({ step, outcome: 'open' });
      } else {
        const executor = executors.get(runId);
        executors.delete(runId);
        const result = await executor.resume(POSITION, { value: name });
        process.send?.({ step, outcome: result.kind });
      }
    } catch (error) {
      process.send?.({ step, outcome: codeOf(error) });
    }
  })();
});
process.on('disconnect', () => void storage.close().then(() => process.exit(0)));
process.send?.({ step: 'ready', outcome: 'ready' });
