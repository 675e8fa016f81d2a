import { isJson } from '@roundtable/core';
import type { Json } from '@roundtable/core';
import { z } from 'zod';

/** A JSON value as `@roundtable/core` defines it. */
export const JsonSchema = z.custom<Json>((value) => isJson(value), 'Expected a JSON value.');

/** A git object id (SHA-1 or SHA-256, lowercase hex). */
export const CommitIdSchema = z.string().regex(/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/, 'Expected a full git commit id.');

/** A job id: a UUID (lowercase), as `crypto.randomUUID()` draws it. */
export const JobIdSchema = z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, 'Expected a job id (a lowercase UUID).');

export const TeamJobReviewPlanSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('panel'), threshold: z.number().int().positive() }),
  z.strictObject({ kind: z.literal('callback'), reason: z.string().min(1), request: JsonSchema }),
]);

/** `data` of a team-job definition: everything the job's decisions depend on. */
export const TeamJobDataSchema = z.strictObject({
  task: z.string().min(1),
  /** The job's run id: it names the job's branches. */
  runId: z.string().min(1),
  /**
   * Drawn at random when the job started: a later job that reuses the run id is another job. Every
   * commit and ref update the job makes names it.
   */
  jobId: JobIdSchema,
  /** The repository's HEAD when the job started: every agent branch and the integration start here. */
  startCommit: CommitIdSchema,
  integrate: z.boolean(),
  concurrency: z.number().int().positive(),
  review: TeamJobReviewPlanSchema.nullable(),
});

export const TeamJobNodeDataSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('agent'), name: z.string().min(1), role: z.string().min(1), brief: z.string().min(1) }),
  z.strictObject({ kind: z.literal('integration') }),
  z.strictObject({ kind: z.literal('reviewer'), name: z.string().min(1) }),
  z.strictObject({ kind: z.literal('callback') }),
]);

/** What an agent's node records: the agent's own outcome and the runtime's commit. */
export const AgentNodeResultSchema = z.strictObject({
  summary: z.string(),
  status: z.enum(['pass', 'fail']),
  data: JsonSchema,
  /** The branch head after the runtime's commit, or null when nothing changed or the agent failed. */
  commit: CommitIdSchema.nullable(),
  branch: z.string(),
  /** True when a crashed attempt had already committed: the outcome was read back from its commit. */
  recovered: z.boolean(),
});

export const IntegrationConflictSchema = z.strictObject({
  /** The agents whose changes conflict, in declaration order. */
  agents: z.array(z.string()),
  /** The conflicting paths. */
  files: z.array(z.string()),
});

/** What the integration node records. */
export const IntegrationNodeResultSchema = z.strictObject({
  summary: z.string(),
  integrated: z.boolean(),
  branch: z.string(),
  /** The integration branch's head (its last merge), or null on a conflict. */
  commit: CommitIdSchema.nullable(),
  /** Agents whose commits were merged, in declaration order (agents without a commit are skipped). */
  merged: z.array(z.string()),
  conflict: IntegrationConflictSchema.nullable(),
});

/** What a panel reviewer's node records. */
export const ReviewerNodeResultSchema = z.strictObject({
  summary: z.string(),
  status: z.enum(['pass', 'fail']),
});

/** What the callback review's node records: the person's answer. */
export const CallbackNodeResultSchema = z.strictObject({
  summary: z.string(),
  approved: z.boolean(),
  note: z.string().nullable(),
});

/** The answer `resume` takes for a callback review. */
export const ReviewAnswerSchema = z.strictObject({
  approved: z.boolean(),
  note: z.string().optional(),
});

export type TeamJobData = z.infer<typeof TeamJobDataSchema>;
export type TeamJobNodeData = z.infer<typeof TeamJobNodeDataSchema>;
export type TeamJobReviewPlan = z.infer<typeof TeamJobReviewPlanSchema>;
export type AgentNodeResult = z.infer<typeof AgentNodeResultSchema>;
export type IntegrationNodeResult = z.infer<typeof IntegrationNodeResultSchema>;
export type IntegrationConflict = z.infer<typeof IntegrationConflictSchema>;
export type ReviewerNodeResult = z.infer<typeof ReviewerNodeResultSchema>;
export type CallbackNodeResult = z.infer<typeof CallbackNodeResultSchema>;
export type ReviewAnswer = z.infer<typeof ReviewAnswerSchema>;
