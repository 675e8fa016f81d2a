import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { GraphEventTypes, createGraphExecutor, createMemoryBacking, createMemoryStorage, foldStream, projectTeamRooms, runView, teamMembers, teamMessages, teamOutput } from '@roundtable/runtime';
import type { GraphRunResult, RunStorage, StoredEvent, TeamMessage } from '@roundtable/runtime';
import { createFsStorage } from '@roundtable/storage-fs';
import { createSqliteStorage } from '@roundtable/storage-sqlite';
import type { DemoEngine } from './aiSdkEngine.js';
import { openPostgresDemoStore } from './postgresDemoStore.js';
import { REVIEWER_REPLIES, releaseGraph, releaseMembers, withApproval } from './teamConversation.js';
import type { ReviewerKind } from './teamConversation.js';

export type DemoStorageKind = 'memory' | 'fs' | 'sqlite' | 'postgres';

export interface DemoOptions {
  readonly storage: DemoStorageKind;
  /** Keep the record and room files in this directory instead of a removed temporary one. */
  readonly keep?: string;
  /** The members (default: local functions); see aiSdkEngine.ts for `--engine ai-sdk`. */
  readonly engine?: DemoEngine;
  /**
   * `--serve`: the reviewer asks a person first; the run pauses, `onPause` gets the pause (and the
   * store to answer it in) and `executor.serve` waits until another process answers. `signal`
   * stops the wait: the demo then ends with the run still paused (`stopped`).
   */
  readonly serve?: { readonly onPause: (pause: DemoPause) => void; readonly signal?: AbortSignal };
  /** `--reviewer`: the local reviewer approves (the default) or rejects the draft. */
  readonly reviewer?: ReviewerKind;
  /**
   * `--run`: the run to run (default `release-team-run`). A run that holds events is carried on
   * from its record: a fork made with `roundtable fork` runs only what follows its fork point.
   */
  readonly runId?: string;
}

/** The pause `--serve` waits at, and where to answer it. */
export interface DemoPause {
  readonly position: string;
  readonly reason: string;
  readonly pausedAt: number;
  /** The `--store` value of the record. */
  readonly store: string;
}

export interface DemoReport {
  readonly ok: boolean;
  readonly runId: string;
  readonly storage: DemoStorageKind;
  readonly messages: readonly TeamMessage[];
  readonly dispatchOrder: readonly string[];
  readonly finalAnswers: readonly { name: string; summary: string | null; data: unknown }[];
  readonly projectionRevision: number;
  readonly roomFiles: readonly { roomId: string; path: string; text: string }[];
  readonly checks: readonly { name: string; ok: boolean }[];
  readonly keptIn: string | null;
  readonly result: GraphRunResult;
  /** Where a PostgreSQL record is (server without password, and schema); null on the other adapters. */
  readonly postgres: string | null;
  /** The kept PostgreSQL record's `--store` URL (no password); null when none outlives the demo. */
  readonly postgresKeptStore: string | null;
  /** `--serve` stopped by its signal while the run waited for its answer: nothing was checked. */
  readonly stopped: boolean;
}

export const RUN_ID = 'release-team-run';

/** Opens a storage instance over the demo's record; called twice to show a real reopen. */
function storageOpener(kind: Exclude<DemoStorageKind, 'postgres'>, directory: string): () => RunStorage {
  if (kind === 'memory') {
    const backing = createMemoryBacking();
    return () => createMemoryStorage({ backing });
  }
  if (kind === 'fs') return () => createFsStorage({ directory: join(directory, 'record') });
  return () => createSqliteStorage({ filename: join(directory, 'record.sqlite') });
}

async function readRecord(storage: RunStorage, runId: string) {
  const dispatchOrder: string[] = [];
  const onEvent = (event: StoredEvent) => {
    if (event.type === GraphEventTypes.NODE_DISPATCHED) dispatchOrder.push((event.payload as { nodeId: string }).nodeId);
  };
  const folder = await foldStream(storage, runId, { graph: releaseGraph, onEvent });
  return { messages: teamMessages(folder.state), dispatchOrder, head: folder.revision };
}

/** The seed's conversation, end to end: run, reopen, replay, project, check, clean up. */
export async function runDemo(options: DemoOptions): Promise<DemoReport> {
  const directory = options.keep === undefined ? await mkdtemp(join(tmpdir(), 'roundtable-demo-')) : resolve(options.keep);
  if (options.keep !== undefined) await mkdir(directory, { recursive: true, mode: 0o700 });
  const postgres = options.storage === 'postgres' ? await openPostgresDemoStore(options.keep !== undefined) : null;
  const open = postgres?.open ?? storageOpener(options.storage as Exclude<DemoStorageKind, 'postgres'>, directory);
  const runId = options.runId ?? RUN_ID;
  try {
    const storage = open();
    let result: GraphRunResult;
    try {
      const nodes = options.engine?.nodes ?? releaseMembers(options.reviewer);
      const executor = await createGraphExecutor({ runId, graph: releaseGraph, storage, nodes: options.serve === undefined ? nodes : withApproval(nodes) });
      result = await executor.run();
      if (options.serve !== undefined && result.kind === 'pause') {
        const store = options.storage === 'fs' ? `fs:${join(directory, 'record')}` : `sqlite:${join(directory, 'record.sqlite')}`;
        options.serve.onPause({ position: result.position ?? '', reason: result.reason, pausedAt: executor.revision, store });
        // Waits for the answer (or a cancel) another process appends, then goes on by itself.
        result = await executor.serve(options.serve.signal === undefined ? {} : { signal: options.serve.signal });
        if (options.serve.signal?.aborted === true && result.kind === 'pause') return stoppedReport(options, directory, result);
      }
    } finally {
      await storage.close();
    }

    // A fresh storage instance and executor over the same record: replay only, nothing runs.
    const reopened = open();
    try {
      // Run revisions: a fork's head counts its parent's prefix.
      const run = runView(reopened);
      const headBefore = await run.head(runId);
      let calls = 0;
      const refuse = () => {
        calls++;
        throw new Error('replay must not run a member');
      };
      const replayed = await (await createGraphExecutor({ runId, graph: releaseGraph, storage: reopened, nodes: teamMembers(releaseGraph, { writer: refuse, reviewer: refuse }) })).run();
      const record = await readRecord(reopened, runId);
      const projected = await projectTeamRooms({ storage: reopened, runId, directory: join(directory, 'rooms') });
      const roomFiles = await Promise.all(projected.files.map(async (file) => ({ ...file, text: await readFile(file.path, 'utf8') })));
      const output = teamOutput(result);
      const finalAnswers = (output?.agents ?? []).map((agent) => ({ name: agent.name, summary: agent.result?.summary ?? null, data: agent.result?.data ?? null }));
      const writerAnswer = finalAnswers.find((answer) => answer.name === 'writer')?.summary ?? '';
      // A real model's conversation may take another course: only a scripted one is checked turn by turn.
      const scripted = options.engine?.scripted ?? true;
      const checks = [
        { name: 'the run completed', ok: result.kind === 'complete' },
        ...(scripted
          ? [
              { name: 'dispatch order is writer, reviewer, writer', ok: record.dispatchOrder.join(',') === 'writer,reviewer,writer' },
              { name: "the writer's final answer contains the reviewer's reply", ok: writerAnswer.includes(REVIEWER_REPLIES[options.reviewer ?? 'approve']) },
            ]
          : []),
        { name: 'the fresh executor returned the same result', ok: JSON.stringify(replayed) === JSON.stringify(result) },
        { name: 'the fresh executor appended nothing and ran no member', ok: (await run.head(runId)) === headBefore && calls === 0 },
        { name: 'the projection read the whole record', ok: projected.revision === headBefore },
        { name: 'the review room file has one line per message', ok: roomFiles[0]?.text.split('\n').length === record.messages.length + 1 },
      ];
      return {
        ok: checks.every((check) => check.ok),
        runId,
        storage: options.storage,
        messages: record.messages,
        dispatchOrder: record.dispatchOrder,
        finalAnswers,
        projectionRevision: projected.revision,
        roomFiles,
        checks,
        keptIn: options.keep === undefined ? null : directory,
        result,
        postgres: postgres?.description ?? null,
        postgresKeptStore: postgres?.keptStore ?? null,
        stopped: false,
      };
    } finally {
      await reopened.close();
    }
  } finally {
    await postgres?.dispose();
    if (options.keep === undefined) await rm(directory, { recursive: true, force: true });
  }
}

/** `--serve` stopped while the run waited: the record keeps the pause (with `--keep`, to answer later). */
function stoppedReport(options: DemoOptions, directory: string, result: GraphRunResult): DemoReport {
  return {
    ok: true,
    runId: options.runId ?? RUN_ID,
    storage: options.storage,
    messages: [],
    dispatchOrder: [],
    finalAnswers: [],
    projectionRevision: 0,
    roomFiles: [],
    checks: [],
    keptIn: options.keep === undefined ? null : directory,
    result,
    postgres: null,
    postgresKeptStore: null,
    stopped: true,
  };
}
