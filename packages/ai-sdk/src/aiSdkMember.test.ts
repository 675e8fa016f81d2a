import { describe, expect, it } from 'vitest';
import { pairTeam } from '@roundtable/test-utils';
import { compileGraph, teamGraphType } from '@roundtable/graph';
import type { TeamGraphResult } from '@roundtable/graph';
import { createGraphExecutor, teamMembers } from '@roundtable/scheduler';
import type { GraphRunResult } from '@roundtable/scheduler';
import { createMemoryBacking, createMemoryStorage } from '@roundtable/storage-memory';
import { tool } from 'ai';
import { z } from 'zod';
import { AiSdkMemberError, aiSdkMember, isAiSdkMemberError } from './index.js';
import { compileThreeRoomTeam, promptText, readAll, runWithWriter, scriptedModel, threeRoomTeam } from './__fixtures__/testModels.js';
import type { ScriptedAnswer } from './__fixtures__/testModels.js';

const RUN = 'ai-run';
const REPLY = 'Approved. Add one line on the storage migration.';
const SECRET = 'Between us: the writer is late again.';

function outputOf(result: GraphRunResult): TeamGraphResult {
  if (result.kind !== 'complete') throw new Error(`expected complete, got ${JSON.stringify(result)}`);
  return result.output as TeamGraphResult;
}

/** The conversation: writer asks for a review (and tells ops), reviewer replies (and gossips in back-room), writer finishes. */
function conversationModels(writerUsage: readonly [number, number] = [100, 20]) {
  // The writer answers from its prompt, like a model would: a draft on its first turn, the final notes after.
  const writer = scriptedModel((call): ScriptedAnswer =>
    promptText(call).user.includes('this is your first turn')
      ? {
          json: {
            summary: 'Drafted the notes and asked for a review.',
            posts: [
              { roomId: 'review', text: 'Draft: 2.0 adds durable rooms.\nPlease review.', mentions: ['reviewer'] },
              { roomId: 'ops', text: 'Release window is Friday.', mentions: [] },
            ],
          },
          usage: writerUsage,
        }
      : { json: { summary: `Final notes with the review applied: ${REPLY}`, data: { version: '2.0' } }, usage: writerUsage },
  'writer-model');
  const reviewer = scriptedModel(
    (): ScriptedAnswer => ({
      json: {
        summary: 'Reviewed the draft.',
        posts: [
          { roomId: 'back-room', text: SECRET, mentions: [] },
          { roomId: 'review', text: REPLY, mentions: ['writer'] },
        ],
      },
      usage: [50, 10],
    }),
    'reviewer-model',
  );
  const deployer = scriptedModel((): ScriptedAnswer => ({ json: { summary: 'Deployed.' } }), 'deployer-model');
  return { writer, reviewer, deployer };
}

function bindings(graph: ReturnType<typeof compileThreeRoomTeam>, models: ReturnType<typeof conversationModels>) {
  return teamMembers(graph, {
    writer: aiSdkMember(graph, 'writer', { model: models.writer, instructions: 'Write in plain English.', temperature: 0.2, maxOutputTokens: 400 }),
    reviewer: aiSdkMember(graph, 'reviewer', { model: models.reviewer }),
    deployer: aiSdkMember(graph, 'deployer', { model: models.deployer }),
  });
}

describe('aiSdkMember: the schema each model receives', () => {
  it('lists only the member\'s rooms as roomIds and each room\'s members as mentions', async () => {
    const graph = compileThreeRoomTeam();
    const models = conversationModels();
    await (await createGraphExecutor({ runId: RUN, graph, storage: createMemoryStorage(), nodes: bindings(graph, models) })).run();
    const format = models.writer.doGenerateCalls[0]!.responseFormat;
    expect(format?.type).toBe('json');
    const schema = (format as unknown as { schema: { properties: Record<string, unknown>; required: string[]; additionalProperties: boolean } }).schema;
    expect(schema.required).toEqual(['summary']);
    expect(schema.additionalProperties).toBe(false);
    const posts = schema.properties['posts'] as { items: { anyOf: { properties: { roomId: { const: string }; mentions: { items: { enum: string[] } } } }[] } };
    expect(posts.items.anyOf.map((variant) => [variant.properties.roomId.const, variant.properties.mentions.items.enum])).toEqual([
      ['review', ['writer', 'reviewer']],
      ['ops', ['writer', 'deployer']],
    ]);
    expect(JSON.stringify(schema)).not.toContain('back-room');

    const reviewerSchema = JSON.stringify(models.reviewer.doGenerateCalls[0]!.responseFormat);
    expect(reviewerSchema).toContain('"const":"back-room"');
    expect(reviewerSchema).not.toContain('"const":"ops"');
  });

  it('offers a member in one room a single post shape, and no posts at all without communication', async () => {
    const single = compileGraph(teamGraphType, {
      ...threeRoomTeam(),
      data: { ...threeRoomTeam().data, communication: { rooms: [{ id: 'review', members: ['writer', 'reviewer'] }], tailMessages: 3 } },
    });
    const model = scriptedModel(() => ({ json: { summary: 'Done alone.' } }));
    const quiet = scriptedModel(() => ({ json: { summary: 'quiet' } }));
    await (
      await createGraphExecutor({
        runId: RUN,
        graph: single,
        storage: createMemoryStorage(),
        nodes: { writer: aiSdkMember(single, 'writer', { model }), reviewer: aiSdkMember(single, 'reviewer', { model: quiet }), deployer: aiSdkMember(single, 'deployer', { model: quiet }) },
      })
    ).run();
    const schema = (model.doGenerateCalls[0]!.responseFormat as unknown as { schema: { properties: { posts: { items: { properties: { roomId: { const: string } } } } } } }).schema;
    expect(schema.properties.posts.items.properties.roomId.const).toBe('review');

    const { communication: _unused, ...data } = threeRoomTeam().data;
    const silent = compileGraph(teamGraphType, { ...threeRoomTeam(), data });
    const silentModel = scriptedModel(() => ({ json: { summary: 'No rooms here.' } }));
    const result = await (
      await createGraphExecutor({
        runId: RUN,
        graph: silent,
        storage: createMemoryStorage(),
        nodes: { writer: aiSdkMember(silent, 'writer', { model: silentModel }), reviewer: aiSdkMember(silent, 'reviewer', { model: quiet }), deployer: aiSdkMember(silent, 'deployer', { model: quiet }) },
      })
    ).run();
    expect(outputOf(result).agents[0]!.result!.summary).toBe('No rooms here.');
    const silentSchema = (silentModel.doGenerateCalls[0]!.responseFormat as unknown as { schema: { properties: Record<string, unknown> } }).schema;
    expect(Object.keys(silentSchema.properties)).toEqual(['summary', 'data']);
    expect(promptText(silentModel.doGenerateCalls[0]!).system).toContain('you cannot post messages');
  });
});

describe('aiSdkMember: a conversation on the stored executor', () => {
  it('runs writer → reviewer → writer, records usage, model and finish reason, and replays without a model call', async () => {
    const backing = createMemoryBacking();
    const graph = compileThreeRoomTeam();
    const models = conversationModels();
    const result = await (await createGraphExecutor({ runId: RUN, graph, storage: createMemoryStorage({ backing }), nodes: bindings(graph, models) })).run();
    const output = outputOf(result);
    const [writer, reviewer, deployer] = output.agents;
    expect(writer!.result!.summary).toContain(REPLY);
    expect(writer!.result!.data).toEqual({
      model: { provider: 'mock-provider', modelId: 'writer-model' },
      usage: { inputTokens: 100, outputTokens: 20, totalTokens: 120 },
      memberUsage: { inputTokens: 200, outputTokens: 40, totalTokens: 240 },
      finishReason: 'stop',
      output: { version: '2.0' },
    });
    expect(reviewer!.result!.data).toMatchObject({ usage: { totalTokens: 60 }, memberUsage: { totalTokens: 60 } });
    expect(deployer!.result).toBeNull();
    expect(models.writer.doGenerateCalls).toHaveLength(2);
    expect(models.reviewer.doGenerateCalls).toHaveLength(1);
    expect(models.deployer.doGenerateCalls).toHaveLength(0);

    // A fresh executor over the same record: the same result (usage included), no model call, nothing appended.
    const reopened = createMemoryStorage({ backing });
    const head = await reopened.head(RUN);
    const silent = conversationModels();
    const replayed = await (await createGraphExecutor({ runId: RUN, graph: compileThreeRoomTeam(), storage: reopened, nodes: bindings(graph, silent) })).run();
    expect(replayed).toEqual(result);
    expect(silent.writer.doGenerateCalls.length + silent.reviewer.doGenerateCalls.length).toBe(0);
    expect(await reopened.head(RUN)).toBe(head);
  });

  it('derives memberUsage from the record: a fresh process continuing the run still sums every turn', async () => {
    const backing = createMemoryBacking();
    const graph = compileThreeRoomTeam();
    // First process: the reviewer's turn waits for a person, so the run pauses after the writer's first turn.
    const first = conversationModels([100, 20]);
    const waiting = {
      ...bindings(graph, first),
      reviewer: { ...aiSdkMember(graph, 'reviewer', { model: first.reviewer }), decideAction: () => ({ kind: 'wait' as const, reason: 'approve the reviewer', request: null }) },
    };
    const paused = await (await createGraphExecutor({ runId: RUN, graph, storage: createMemoryStorage({ backing }), nodes: waiting })).run();
    expect(paused).toMatchObject({ kind: 'pause', position: 'team/reviewer/1' });
    // Second process: new models, new bindings, nothing in memory but the record.
    const second = conversationModels([100, 20]);
    const resumed = await (await createGraphExecutor({ runId: RUN, graph: compileThreeRoomTeam(), storage: createMemoryStorage({ backing }), nodes: bindings(graph, second) })).resume('team/reviewer/1');
    const writer = outputOf(resumed).agents[0]!.result!;
    expect(second.writer.doGenerateCalls).toHaveLength(1);
    expect(writer.data).toMatchObject({ usage: { totalTokens: 120 }, memberUsage: { inputTokens: 200, outputTokens: 40, totalTokens: 240 } });
  });

  it('gives the model its role, brief, task, rooms, rules and instructions, and its messages in the room-line format', async () => {
    const graph = compileThreeRoomTeam();
    const models = conversationModels();
    await (await createGraphExecutor({ runId: RUN, graph, storage: createMemoryStorage(), nodes: bindings(graph, models) })).run();
    const first = promptText(models.writer.doGenerateCalls[0]!);
    expect(first.system).toContain('Your role: technical writer');
    expect(first.system).toContain('Your brief: Draft the notes, ask for a review, then apply it.');
    expect(first.system).toContain("The team's task: Ship the release notes for version 2.0.");
    expect(first.system).toContain('- room "review": writer (you), reviewer');
    expect(first.system).toContain('- room "ops": writer (you), deployer');
    expect(first.system).not.toContain('back-room');
    expect(first.system).toContain("queues that member's next turn");
    expect(first.system.trimEnd().endsWith('Write in plain English.')).toBe(true);
    expect(first.user).toContain('Your previous result: none, this is your first turn.');
    expect(models.writer.doGenerateCalls[0]).toMatchObject({ temperature: 0.2, maxOutputTokens: 400 });
    expect(models.reviewer.doGenerateCalls[0]!.temperature).toBeUndefined();
    expect(first.user).toContain('Room "review": (no messages)');

    const second = promptText(models.writer.doGenerateCalls[1]!);
    expect(second.user).toContain('Your previous result: {"posts":[{"mentions":["reviewer"],"roomId":"review","text":"Draft: 2.0 adds durable rooms.\\nPlease review."},');
    expect(second.user).toContain('"summary":"Drafted the notes and asked for a review."}');
    expect(second.user).not.toContain('memberUsage');
    // Grouped by room in the member's room order, one physical line per message, fields escaped as in room files.
    const lines = second.user.split('\n');
    const review = lines.indexOf('Room "review":');
    const ops = lines.indexOf('Room "ops":');
    expect(review).toBeGreaterThan(-1);
    expect(ops).toBeGreaterThan(review);
    // The reviewer's reply requested this turn: it alone is marked.
    expect(lines.slice(review + 1, ops)).toEqual([
      '  writer [team/writer/1/0] @reviewer: Draft: 2.0 adds durable rooms.\\nPlease review.',
      `* reviewer [team/reviewer/1/1] @writer: ${REPLY}`,
    ]);
    expect(lines[ops + 1]).toBe('  writer [team/writer/1/1]: Release window is Friday.');
    expect(second.user).toContain('This is your turn 2 of at most 2.');
    expect(second.user).toContain('lines starting with "*" requested this turn');
    // The reviewer's first turn was requested by the writer's draft.
    expect(promptText(models.reviewer.doGenerateCalls[0]!).user).toContain('* writer [team/writer/1/0] @reviewer: Draft');
    // The writer's first turn was requested by nobody: nothing is marked.
    expect(first.user).not.toMatch(/^\* /m);
    // Nothing from a room the writer is not in.
    expect(second.user).not.toContain(SECRET);
    expect(second.user).not.toContain('back-room');
    expect(promptText(models.reviewer.doGenerateCalls[0]!).user).not.toContain('Release window');
  });
});

describe('aiSdkMember: refused output', () => {
  async function runWriter(answer: ScriptedAnswer) {
    const graph = compileThreeRoomTeam();
    const storage = createMemoryStorage();
    const writer = scriptedModel(() => answer);
    const result = await runWithWriter(RUN, graph, storage, aiSdkMember(graph, 'writer', { model: writer }));
    const events = await readAll(storage, RUN);
    const failures = events.filter((event) => event.type === 'graph:node-failed').map((event) => event.payload as { code: string; message: string });
    return { result, events, failures, calls: writer.doGenerateCalls.length };
  }

  it('never lets a post to a foreign room reach the record (RESULT_INVALID naming the room and the member)', async () => {
    const text = 'Psst, deployer: ship it now.';
    const { result, events, failures } = await runWriter({ json: { summary: 'Sneaky.', posts: [{ roomId: 'back-room', text, mentions: ['deployer'] }] } });
    expect(result).toMatchObject({ kind: 'fail', code: 'TEAM_NODE_FAILED' });
    expect(failures.length).toBeGreaterThan(0);
    for (const failure of failures) {
      expect(failure.code).toBe('RESULT_INVALID');
      expect(failure.message).toContain('back-room');
      expect(failure.message).toContain('writer');
    }
    expect(events.some((event) => event.type === 'graph:node-completed')).toBe(false);
    expect(JSON.stringify(events)).not.toContain(text);
  });

  it('refuses a mention of a member outside the room, a missing summary and an answer that is not JSON', async () => {
    const mention = await runWriter({ json: { summary: 'x', posts: [{ roomId: 'review', text: 'hi', mentions: ['deployer'] }] } });
    expect(mention.failures[0]).toMatchObject({ code: 'RESULT_INVALID' });
    expect(mention.failures[0]!.message).toContain('deployer');

    const missing = await runWriter({ json: { posts: [] } });
    expect(missing.failures[0]).toMatchObject({ code: 'RESULT_INVALID' });
    expect(missing.failures[0]!.message).toContain('summary');

    const extra = await runWriter({ json: { summary: 'x', verdict: 'ok' } });
    expect(extra.failures[0]).toMatchObject({ code: 'RESULT_INVALID' });
    expect(extra.failures[0]!.message).toContain('verdict');

    const prose = await runWriter({ text: 'Sure! Here are the notes.' });
    expect(prose.failures[0]).toMatchObject({ code: 'RESULT_INVALID' });
    expect(prose.failures[0]!.message).toContain('not JSON');
    expect(prose.result).toMatchObject({ kind: 'fail', code: 'TEAM_NODE_FAILED' });
  });

  it('records a model error as EFFECT_FAILED with the model\'s message', async () => {
    const graph = compileThreeRoomTeam();
    const storage = createMemoryStorage();
    const broken = scriptedModel(() => {
      throw new Error('upstream said: 503 overloaded');
    });
    const result = await runWithWriter(RUN, graph, storage, aiSdkMember(graph, 'writer', { model: broken }));
    expect(result).toMatchObject({ kind: 'fail', code: 'TEAM_NODE_FAILED' });
    const failed = (await readAll(storage, RUN)).filter((event) => event.type === 'graph:node-failed').map((event) => event.payload);
    expect(failed.at(-1)).toMatchObject({ nodeId: 'writer', code: 'EFFECT_FAILED' });
    expect((failed.at(-1) as { message: string }).message).toContain('upstream said: 503 overloaded');
  });
});

describe('aiSdkMember: retries', () => {
  function quietNodes(graph: ReturnType<typeof compileThreeRoomTeam>) {
    const quiet = scriptedModel(() => ({ json: { summary: 'quiet' } }));
    return { reviewer: aiSdkMember(graph, 'reviewer', { model: quiet }), deployer: aiSdkMember(graph, 'deployer', { model: quiet }) };
  }

  it('tells the model on a retried attempt why its previous answer was refused, and records node-retried', async () => {
    const graph = compileThreeRoomTeam({ maxTurnsPerMember: 1 });
    const writer = scriptedModel((_call, index) =>
      index === 0 ? { json: { summary: 'Sneaky.', posts: [{ roomId: 'back-room', text: 'psst', mentions: [] }] } } : { json: { summary: 'Kept to my rooms.' } },
    );
    const storage = createMemoryStorage();
    const nodes = teamMembers(graph, { ...quietNodes(graph), writer: aiSdkMember(graph, 'writer', { model: writer }) });
    const result = await (await createGraphExecutor({ runId: RUN, graph, storage, nodes })).run();
    expect(outputOf(result).agents[0]!.result!.summary).toBe('Kept to my rooms.');
    expect(writer.doGenerateCalls).toHaveLength(2);
    expect(promptText(writer.doGenerateCalls[0]!).user).not.toContain('was refused');
    const retryPrompt = promptText(writer.doGenerateCalls[1]!).user;
    expect(retryPrompt).toContain('Your previous answer for this turn was refused (RESULT_INVALID): ');
    expect(retryPrompt).toContain('back-room');
    const retried = (await readAll(storage, RUN)).filter((event) => event.type === 'graph:node-retried').map((event) => event.payload);
    expect(retried).toEqual([expect.objectContaining({ nodeId: 'writer', position: 'team/writer/1', attempt: 1, code: 'RESULT_INVALID' })]);
  });

  it('retries RESULT_INVALID and EFFECT_FAILED up to 3 attempts by default, and not TIMEOUT or DENIED', async () => {
    const graph = compileThreeRoomTeam({ maxTurnsPerMember: 1 });
    const flaky = scriptedModel((_call, index) => {
      if (index === 0) throw new Error('connection reset');
      return { json: { summary: 'Second time lucky.' } };
    });
    const recovered = await (await createGraphExecutor({ runId: RUN, graph, storage: createMemoryStorage(), nodes: { ...quietNodes(graph), writer: aiSdkMember(graph, 'writer', { model: flaky }) } })).run();
    expect(outputOf(recovered).agents[0]!.result!.summary).toBe('Second time lucky.');
    expect(promptText(flaky.doGenerateCalls[1]!).user).toContain('(EFFECT_FAILED): connection reset');

    const stubborn = scriptedModel(() => ({ text: 'no JSON from me' }));
    const storage = createMemoryStorage();
    const failed = await (await createGraphExecutor({ runId: RUN, graph, storage, nodes: { ...quietNodes(graph), writer: aiSdkMember(graph, 'writer', { model: stubborn }) } })).run();
    expect(failed).toMatchObject({ kind: 'fail', code: 'TEAM_NODE_FAILED' });
    expect(stubborn.doGenerateCalls).toHaveLength(3);
    const types = (await readAll(storage, RUN)).filter((event) => event.type === 'graph:node-retried' || event.type === 'graph:node-failed').map((event) => event.type);
    expect(types).toEqual(['graph:node-retried', 'graph:node-retried', 'graph:node-failed']);
    expect(aiSdkMember(graph, 'writer', { model: stubborn }).retry).toEqual({ maxAttempts: 3, codes: ['RESULT_INVALID', 'EFFECT_FAILED'] });
  });
});

describe('aiSdkMember: tools, steps, timeouts and budgets', () => {
  it('runs tool calls with the attempt\'s signal and bounds them by maxSteps', async () => {
    const graph = compileThreeRoomTeam();
    const seen: AbortSignal[] = [];
    const lookup = tool({
      description: 'Look up a changelog entry.',
      inputSchema: z.object({ id: z.string() }),
      execute: ({ id }, { abortSignal }) => {
        if (abortSignal) seen.push(abortSignal);
        return Promise.resolve({ id, entry: `entry ${id}` });
      },
    });
    const quiet = scriptedModel(() => ({ json: { summary: 'quiet' } }));
    const oneCall = scriptedModel((_call, index) =>
      index === 0 ? { toolCalls: [{ toolName: 'lookup', input: { id: 'c-1' } }] } : { json: { summary: 'Looked it up.' } },
    );
    const storage = createMemoryStorage();
    const result = await runWithWriter(RUN, graph, storage, aiSdkMember(graph, 'writer', { model: oneCall, tools: { lookup } }));
    expect(outputOf(result).agents[0]!.result!.summary).toBe('Looked it up.');
    expect(seen).toHaveLength(1);
    expect(oneCall.doGenerateCalls).toHaveLength(2);
    // The tool's result went back to the model in its second step.
    expect(JSON.stringify(oneCall.doGenerateCalls[1]!.prompt)).toContain('entry c-1');
    // With tools the binding is not retrySafe by default; without, it is.
    const started = (await readAll(storage, RUN)).filter((event) => event.type === 'graph:node-attempt-started').map((event) => event.payload as { retrySafe: boolean });
    expect(started[0]!.retrySafe).toBe(false);
    expect(aiSdkMember(graph, 'reviewer', { model: quiet }).retrySafe).toBe(true);
    expect(aiSdkMember(graph, 'reviewer', { model: quiet, tools: { lookup }, retrySafe: true }).retrySafe).toBe(true);

    // A model that never stops calling tools is stopped after maxSteps and its turn refused.
    const endless = scriptedModel(() => ({ toolCalls: [{ toolName: 'lookup', input: { id: 'again' } }] }));
    seen.length = 0;
    const endlessStorage = createMemoryStorage();
    const stopped = await (
      await createGraphExecutor({
        runId: RUN,
        graph,
        storage: endlessStorage,
        nodes: {
          writer: aiSdkMember(graph, 'writer', { model: endless, tools: { lookup }, maxSteps: 3, retry: { maxAttempts: 1 } }),
          reviewer: aiSdkMember(graph, 'reviewer', { model: quiet }),
          deployer: aiSdkMember(graph, 'deployer', { model: quiet }),
        },
      })
    ).run();
    expect(stopped).toMatchObject({ kind: 'fail', code: 'TEAM_NODE_FAILED' });
    expect(endless.doGenerateCalls).toHaveLength(3);
    expect(seen).toHaveLength(3);
    const failed = (await readAll(endlessStorage, RUN)).find((event) => event.type === 'graph:node-failed')!.payload as { code: string; message: string };
    expect(failed.code).toBe('RESULT_INVALID');
    expect(failed.message).toContain('maxSteps 3');
  });

  it('aborts the model call on timeout and records TIMEOUT', async () => {
    const graph = compileThreeRoomTeam();
    const signals: AbortSignal[] = [];
    const hanging = scriptedModel(
      (call) =>
        new Promise<ScriptedAnswer>((_resolve, reject) => {
          signals.push(call.abortSignal!);
          call.abortSignal!.addEventListener('abort', () => reject(new Error('the request was aborted')), { once: true });
        }),
    );
    const storage = createMemoryStorage();
    const result = await runWithWriter(RUN, graph, storage, aiSdkMember(graph, 'writer', { model: hanging, limits: { timeoutMs: 20 } }));
    expect(result).toMatchObject({ kind: 'fail', code: 'TEAM_NODE_FAILED' });
    expect(signals.length).toBeGreaterThan(0);
    expect(signals.every((signal) => signal.aborted)).toBe(true);
    const failed = (await readAll(storage, RUN)).filter((event) => event.type === 'graph:node-failed');
    expect(failed.map((event) => (event.payload as { code: string }).code)).toEqual(['TIMEOUT']);
  });

  it('stops a member whose token budget is spent: DENIED, then TEAM_NODE_FAILED naming it', async () => {
    const graph = compileThreeRoomTeam();
    const models = conversationModels([200, 50]);
    const storage = createMemoryStorage();
    const nodes = { ...bindings(graph, models), writer: aiSdkMember(graph, 'writer', { model: models.writer, tokenBudget: 250 }) };
    const result = await (await createGraphExecutor({ runId: RUN, graph, storage, nodes })).run();
    expect(result).toMatchObject({ kind: 'fail', code: 'TEAM_NODE_FAILED' });
    expect((result as { message: string }).message).toContain('writer');
    // The first turn (0 used) ran; the second (250 used of 250) was denied before any model call.
    expect(models.writer.doGenerateCalls).toHaveLength(1);
    const failed = (await readAll(storage, RUN)).filter((event) => event.type === 'graph:node-failed').map((event) => event.payload);
    expect(failed).toEqual([{ nodeId: 'writer', position: 'team/writer/2', code: 'DENIED', message: 'token budget exhausted' }]);
  });
});

describe('aiSdkMember: bad arguments', () => {
  it('checks the member id at compile time when the definition is a literal, and always at run time', () => {
    const literal = compileGraph(teamGraphType, pairTeam());
    const model = scriptedModel(() => ({ json: { summary: 'x' } }));
    expect(aiSdkMember(literal, 'lead', { model }).retrySafe).toBe(true);
    // @ts-expect-error "Lead" is not a member id of this team
    expect(() => aiSdkMember(literal, 'Lead', { model })).toThrow(AiSdkMemberError);
    // teamMembers takes the bindings as they are, keyed by the team's member ids.
    expect(Object.keys(teamMembers(literal, { lead: aiSdkMember(literal, 'lead', { model }), aide: aiSdkMember(literal, 'aide', { model }) }))).toEqual(['lead', 'aide']);
  });

  it('refuses a member the team does not declare, a graph that is not a team, and out-of-range options', () => {
    const graph = compileThreeRoomTeam();
    const model = scriptedModel(() => ({ json: { summary: 'x' } }));
    const codeOf = (build: () => unknown) => {
      try {
        build();
      } catch (error) {
        return isAiSdkMemberError(error) ? error.code : 'not an AiSdkMemberError';
      }
      return 'no error';
    };
    expect(codeOf(() => aiSdkMember(graph, 'nobody', { model }))).toBe('INVALID_MEMBER');
    expect(codeOf(() => aiSdkMember({ ...graph, kind: 'other' }, 'writer', { model }))).toBe('INVALID_MEMBER');
    expect(codeOf(() => aiSdkMember(graph, 'writer', { model, maxSteps: 0 }))).toBe('INVALID_MEMBER_OPTIONS');
    expect(codeOf(() => aiSdkMember(graph, 'writer', { model, tokenBudget: 1.5 }))).toBe('INVALID_MEMBER_OPTIONS');
    expect(codeOf(() => aiSdkMember(graph, 'writer', { model, retry: { maxAttempts: 0 } }))).toBe('INVALID_MEMBER_OPTIONS');
    expect(new AiSdkMemberError('INVALID_MEMBER', 'x').name).toBe('AiSdkMemberError');
  });
});
