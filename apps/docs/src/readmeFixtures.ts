// The names README snippets take as given, for their `docs-test: declare` lines:
// `import { graph, storage } from 'docs-test/fixtures';` resolves here when the blocks are
// type-checked. Only types matter: the snippets are compiled, never run.
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { TeamDispatchInput, TeamTurnResult } from '@roundtable/runtime';
import { compileGraph, createMemoryStorage, teamGraphType, teamMembers } from '@roundtable/runtime';
import type { GraphExecutor } from '@roundtable/scheduler';
import type { RunStorage, StorageOptions } from '@roundtable/storage';

/** The README's release team (a writer and a reviewer in room "review"), written `as const`. */
export const releaseTeam = {
  id: 'release-team',
  definitionVersion: 1,
  data: {
    task: 'Write the release notes.',
    globalConcurrency: 1,
    maxTurnsPerMember: 2,
    communication: { rooms: [{ id: 'review', members: ['writer', 'reviewer'] }], tailMessages: 3 },
  },
  nodes: [
    { id: 'writer', data: { role: 'writer', brief: 'Draft, then apply the review.' } },
    { id: 'reviewer', data: { role: 'reviewer', brief: 'Review the draft.', initialTurn: false } },
  ],
  edges: [],
} as const;

export const graph = compileGraph(teamGraphType, releaseTeam);
export const nodes = teamMembers(graph, { writer: () => ({ summary: 'Done.' }), reviewer: () => ({ summary: 'Reviewed.' }) });
export const storage: RunStorage = createMemoryStorage();
export declare const executor: GraphExecutor;
export declare const position: string;
export declare const connectionString: string;
export declare const url: string;
export declare const yourExporter: SpanExporter;

/** A member's work, as the snippets call it. */
export declare function writeNotes(input: TeamDispatchInput): TeamTurnResult;
export declare function review(input: TeamDispatchInput): TeamTurnResult;
export declare function publish(input: TeamDispatchInput): TeamTurnResult;

/** The reader's own storage adapter, for the conformance-kit snippets. */
export declare function createMyStorage(options: StorageOptions & { url?: string; backing?: unknown }): RunStorage;
export declare function openSharedBacking(): unknown;
