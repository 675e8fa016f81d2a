export { team, teamJobDefinition } from './team.js';
export type { TeamJob, TeamJobIdentity, TeamJobResult, TeamResumeOptions, TeamRunOptions } from './team.js';
export type {
  AgentOutcome,
  AgentRunInput,
  CallbackReview,
  PanelReview,
  ResolvedTeamConfig,
  ReviewerInput,
  ReviewerOutcome,
  TeamAgent,
  TeamConfig,
  TeamReview,
  TeamReviewer,
} from './teamConfig.js';
export { resolveTeamConfig } from './teamConfig.js';
export { TeamError, TeamErrorCodes, TeamJobFailureCodes, isTeamError } from './errors.js';
export type { TeamErrorCode, TeamJobFailureCode } from './errors.js';
export { INVALID_TEAM_JOB, teamJobGraphType } from './teamJobGraphType.js';
export {
  CALLBACK_REVIEW_NODE_ID,
  INTEGRATION_NODE_ID,
  TEAM_JOB_GRAPH_KIND,
  TEAM_JOB_GRAPH_VERSION,
  agentBranch,
  agentNodeId,
  agentPrompt,
  integrationBranch,
  reviewerNodeId,
} from './teamJobPlan.js';
export { teamJobReport } from './teamJobReport.js';
export type {
  StepError,
  TeamJobAgentReport,
  TeamJobIntegrationReport,
  TeamJobReport,
  TeamJobReviewReport,
  TeamJobReviewerReport,
} from './teamJobReport.js';
export type { TeamJobState, TeamJobStepState, TeamJobStepStatus } from './teamJobState.js';
export {
  AgentNodeResultSchema,
  CallbackNodeResultSchema,
  IntegrationNodeResultSchema,
  JobIdSchema,
  ReviewAnswerSchema,
  ReviewerNodeResultSchema,
  TeamJobDataSchema,
  TeamJobNodeDataSchema,
} from './teamJobSchemas.js';
export type {
  AgentNodeResult,
  CallbackNodeResult,
  IntegrationNodeResult,
  ReviewAnswer,
  ReviewerNodeResult,
  TeamJobData,
  TeamJobNodeData,
} from './teamJobSchemas.js';
export { RUNTIME_AUTHOR } from './git.js';
