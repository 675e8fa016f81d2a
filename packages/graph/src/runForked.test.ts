import { describe, expect, it } from 'vitest';
import type { Json } from '@roundtable/core';
import { GraphEventTypes, RunRecordFolder, runStartedPayload } from './index.js';
import type { RecordedEvent } from './index.js';
import { attemptSteps, foldAll, recordOf, refusal } from './__fixtures__/recordFixtures.js';
import type { Step } from './__fixtures__/recordFixtures.js';
import { compileTeam, team } from './__fixtures__/teamFixtures.js';

// The fold's rules for graph:run-forked (SPEC 21): it follows revision `at` directly, never
// inside a dispatch batch, with the definition in force there; an attempt started at `at`
// without an outcome becomes ready work; a pause stays open.

const graph = compileTeam(team({ members: [{ id: 'a', initialTurn: true }, { id: 'b', initialTurn: true }] }));
const a = attemptSteps('a', 'team/a/1');
const b = attemptSteps('b', 'team/b/1');
const DIGEST = `sha256:${'0'.repeat(64)}`;
const definition = (runStartedPayload(graph) as unknown as { definition: Json }).definition;
const forked = (at: number, over: Record<string, Json> = {}): Step => [GraphEventTypes.RUN_FORKED, { from: 'parent', at, prefixDigest: DIGEST, definition, ...over }];

describe('graph:run-forked in the fold', () => {
  it('makes an attempt started at the fork point ready (the same attempt number, so the next start is one higher) and keeps a pause open', () => {
    const folder = foldAll(graph, recordOf(graph, a.dispatched, b.dispatched, a.started(), b.started(), b.paused('ask'), forked(6)));
    expect(folder.openAttempt('team/a/1')).toMatchObject({ status: 'resumed', attempt: 1 });
    expect(folder.openAttempt('team/b/1')).toMatchObject({ status: 'paused', attempt: 1 });
    expect(folder.forks).toEqual([{ from: 'parent', at: 6, prefixDigest: DIGEST }]);
    // The fork starts attempt 2; attempt 1's outcome can no longer be written.
    const next = recordOf(graph, a.dispatched, b.dispatched, a.started(), b.started(), b.paused('ask'), forked(6), a.started(2), a.completed());
    expect(foldAll(graph, next).openAttempt('team/a/1')).toBeUndefined();
    expect(refusal(graph, recordOf(graph, a.dispatched, b.dispatched, a.started(), forked(4), a.completed()))).toMatch(/no attempt in flight/);
  });

  it('refuses a fork inside a dispatch batch, at the wrong revision, with another definition, of a bad shape or as the first event', () => {
    expect(refusal(graph, recordOf(graph, a.dispatched, forked(2), b.dispatched))).toMatch(/inside a dispatch batch/);
    expect(refusal(graph, recordOf(graph, a.dispatched, b.dispatched, forked(2)))).toMatch(/must follow revision 2/);
    const other = { ...(definition as Record<string, Json>), digest: `sha256:${'1'.repeat(64)}` };
    expect(refusal(graph, recordOf(graph, a.dispatched, b.dispatched, forked(3, { definition: other })))).toMatch(/not the one in force/);
    const bad: Record<string, Json>[] = [{ from: 'bad id' }, { at: 0 }, { prefixDigest: 'md5:x' }, { definition: 7 }];
    for (const over of bad) {
      expect(refusal(graph, recordOf(graph, a.dispatched, b.dispatched, forked(3, over)))).toMatch(/must be/);
    }
    const first: RecordedEvent = { revision: 1, eventId: 'e1', type: GraphEventTypes.RUN_FORKED, version: 1, payload: (forked(0)[1]) };
    expect(() => new RunRecordFolder(graph).apply(first)).toThrow(/must start with graph:run-started/);
  });
});
