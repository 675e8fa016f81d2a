import { compileGraph, teamGraphType, teamMembers, teamResultContract } from '@roundtable/runtime';
import type { TeamDispatchInput, TeamTurnResult } from '@roundtable/runtime';

/**
 * The seed's team: a writer with the first turn and a reviewer who waits for a mention. The
 * literal goes straight to compileGraph, so TypeScript knows the member ids ('writer' |
 * 'reviewer') and checks the binding keys of `teamMembers` below.
 */
export const releaseGraph = compileGraph(teamGraphType, {
  id: 'release-team',
  definitionVersion: 1,
  data: {
    task: 'Write the release notes for version 2.0.',
    globalConcurrency: 1,
    maxTurnsPerMember: 2,
    communication: { rooms: [{ id: 'review', members: ['writer', 'reviewer'] }], tailMessages: 3 },
  },
  nodes: [
    { id: 'writer', data: { role: 'writer', brief: 'Draft the notes, ask for a review, then apply it.' } },
    { id: 'reviewer', data: { role: 'reviewer', brief: 'Review the draft and reply to the writer.', initialTurn: false } },
  ],
  edges: [],
});

export const releaseTeam = releaseGraph.definition.value;

export const REVIEW_REPLY = 'Approved. Add one line on the storage migration.';

/** What the reviewer of `pnpm demo -- --reviewer reject` replies. */
export const REJECT_REPLY = 'Rejected: list the breaking changes first.';

/** The demo's reviewers: `approve` (the default) or `reject`. */
export type ReviewerKind = 'approve' | 'reject';

/** The reply of each reviewer. */
export const REVIEWER_REPLIES: Readonly<Record<ReviewerKind, string>> = { approve: REVIEW_REPLY, reject: REJECT_REPLY };

/** Local functions stand in for model-backed members, so the demo needs no model account. */
function writer(input: TeamDispatchInput): TeamTurnResult {
  if (input.result === null) {
    return {
      summary: 'Drafted the release notes and asked for a review.',
      posts: [{ roomId: 'review', text: 'Draft: Version 2.0 adds durable rooms. Please review.', mentions: ['reviewer'] }],
    };
  }
  const reply = input.messages.filter((message) => message.sender === 'reviewer').at(-1);
  return { summary: `Final notes: Version 2.0 adds durable rooms. Review applied: ${reply?.text ?? '(no reply)'}` };
}

function reviewer(input: TeamDispatchInput, reply: string): TeamTurnResult {
  const draft = input.messages.find((message) => message.sender === 'writer');
  return {
    summary: `Reviewed "${draft?.text ?? ''}": ${reply.split(/[.:]/)[0]}.`,
    posts: [{ roomId: 'review', text: reply, mentions: ['writer'] }],
  };
}

/** Typed bindings with the team result contract, which reuses the compiled membership checks; the reviewer approves unless told to reject. */
export function releaseMembers(kind: ReviewerKind = 'approve') {
  return teamMembers(releaseGraph, {
    writer: { run: ({ input }) => writer(input), contract: teamResultContract(releaseGraph, 'writer'), limits: { timeoutMs: 10_000 } },
    reviewer: { run: ({ input }) => reviewer(input, REVIEWER_REPLIES[kind]), contract: teamResultContract(releaseGraph, 'reviewer'), limits: { timeoutMs: 10_000 } },
  });
}

export const releaseNodes = releaseMembers();

/** The reviewer's question to a person in `pnpm demo -- --serve`: a yes or no. */
export const APPROVAL_REASON = 'Approve the review before the reviewer posts it?';

/**
 * The same members, but the reviewer first asks a person (`--serve`): it waits with an approval
 * request, goes on when the answer is `{ approved: true }` and is denied otherwise.
 */
export function withApproval<T extends Readonly<Record<string, object>>>(nodes: T): T {
  const reviewer = {
    ...(nodes as Record<string, object>).reviewer,
    decideAction: (ctx: { resume: unknown; pause: { reason: string } | null }) => {
      if (ctx.pause?.reason !== APPROVAL_REASON) return { kind: 'wait' as const, reason: APPROVAL_REASON, request: { kind: 'approval', question: 'May the reviewer post its review?' } };
      return (ctx.resume as { approved?: unknown } | null)?.approved === true ? { kind: 'allow' as const } : { kind: 'deny' as const, reason: 'A person rejected the review.' };
    },
  };
  return { ...nodes, reviewer };
}
