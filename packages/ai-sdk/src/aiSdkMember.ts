import type { Json } from '@roundtable/core';
import type { CompiledGraph, TeamDispatchInput, TeamState, TeamTurnResult } from '@roundtable/graph';
import type { NodeAction, NodeContext, NodeLimits, NodeRetry, ResultValidator, TeamMemberContext } from '@roundtable/scheduler';
import { trace } from '@opentelemetry/api';
import { NoObjectGeneratedError, NoOutputGeneratedError, Output, generateText, stepCountIs } from 'ai';
import type { LanguageModel, TelemetrySettings, ToolSet } from 'ai';
import { z } from 'zod';
import { AiSdkMemberError } from './aiSdkMemberError.js';
import { memberOutputSchema } from './memberOutputSchema.js';
import type { MemberOutput } from './memberOutputSchema.js';
import { memberPrompt } from './memberPrompt.js';
import { addUsage, previousMemberUsage, turnUsage, usageJson } from './memberUsage.js';
import { memberView } from './memberView.js';
import { diagnoseModelOutput, modelOutputContract, refusal } from './modelOutputContract.js';

export interface AiSdkMemberOptions {
  /** Any AI SDK 6 language model. */
  readonly model: LanguageModel;
  /** Appended to the system part of every prompt, after the team's rules. */
  readonly instructions?: string;
  /** Tools the model may call; each runs with the attempt's abort signal. */
  readonly tools?: ToolSet;
  /** Bound on model steps (tool-call rounds) per attempt: default 1 without tools, 8 with. */
  readonly maxSteps?: number;
  /** Total tokens this member may use over the run; once spent, its next attempt is DENIED. */
  readonly tokenBudget?: number;
  readonly temperature?: number;
  readonly maxOutputTokens?: number;
  /** Whether re-running an attempt whose process died is safe: default true without tools, false with. */
  readonly retrySafe?: boolean;
  /** The binding's limits (`timeoutMs` aborts the model call and records TIMEOUT). */
  readonly limits?: NodeLimits;
  /** Default `{ maxAttempts: 3, codes: ['RESULT_INVALID', 'EFFECT_FAILED'] }`. */
  readonly retry?: NodeRetry;
  /** Retries of the AI SDK's own within one attempt (default 0: every retry is a recorded attempt). */
  readonly maxRetries?: number;
  /**
   * The AI SDK's telemetry settings. Telemetry is on by default so the SDK's spans nest under
   * the scheduler's `invoke_agent` span; `{ isEnabled: false }` turns it off.
   */
  readonly telemetry?: TelemetrySettings;
}

/**
 * What one attempt sees: the typed team context of `teamMembers`, or the plain `NodeContext` of a
 * `nodes` object (the same value, typed either way), so the binding fits both.
 */
export type AiSdkMemberContext = TeamMemberContext | NodeContext;

/** A node binding whose attempts call a model; usable in `teamMembers(graph, …)` and in plain `nodes`. */
export interface AiSdkMemberBinding {
  readonly run: (ctx: AiSdkMemberContext) => Promise<TeamTurnResult>;
  readonly contract: ResultValidator;
  readonly retry: NodeRetry;
  readonly retrySafe: boolean;
  readonly limits?: NodeLimits;
  readonly decideAction?: (ctx: AiSdkMemberContext) => NodeAction;
}

export const DEFAULT_AI_SDK_RETRY: NodeRetry = Object.freeze({ maxAttempts: 3, codes: Object.freeze(['RESULT_INVALID', 'EFFECT_FAILED']) });

export const TOKEN_BUDGET_EXHAUSTED = 'token budget exhausted';

/**
 * A team member backed by a model through the AI SDK (SPEC 12). Each attempt calls
 * `generateText` with structured output whose schema is built for this member from the compiled
 * team, so the model can only post to its own rooms and mention their members.
 */
export function aiSdkMember<MemberId extends string>(graph: CompiledGraph<TeamState, MemberId>, memberId: NoInfer<MemberId>, options: AiSdkMemberOptions): AiSdkMemberBinding {
  const view = memberView(graph as CompiledGraph<unknown>, memberId);
  checkOptions(options);
  const hasTools = options.tools !== undefined && Object.keys(options.tools).length > 0;
  const maxSteps = options.maxSteps ?? (hasTools ? 8 : 1);
  const schema = memberOutputSchema(view);
  const output = Output.object({ schema, name: 'team_turn_result', description: `The result of one turn of team member ${JSON.stringify(memberId)}.` });
  const answerSchema = JSON.stringify(z.toJSONSchema(schema));
  const model = modelIdentity(options.model);
  const validateNodeResult = graph.validateNodeResult!.bind(graph);

  const run = async (ctx: AiSdkMemberContext): Promise<TeamTurnResult> => {
    const input = ctx.input as unknown as TeamDispatchInput;
    const prompt = memberPrompt(
      view,
      {
        result: input.result,
        messages: input.messages,
        triggers: input.triggers,
        turn: input.turn,
        previousFailure: ctx.previousFailure,
      },
      { answerSchema, ...(options.instructions === undefined ? {} : { instructions: options.instructions }) },
    );
    let generated;
    try {
      generated = await generateText({
        model: options.model,
        system: prompt.system,
        prompt: prompt.user,
        output,
        ...(hasTools ? { tools: options.tools } : {}),
        stopWhen: stepCountIs(maxSteps),
        abortSignal: ctx.signal,
        maxRetries: options.maxRetries ?? 0,
        ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
        ...(options.maxOutputTokens === undefined ? {} : { maxOutputTokens: options.maxOutputTokens }),
        experimental_telemetry: { isEnabled: telemetryWanted(options.telemetry), functionId: `roundtable.member.${memberId}`, ...options.telemetry },
      });
    } catch (error) {
      // The answer came back but is not a valid turn: RESULT_INVALID, naming what was wrong.
      if (NoObjectGeneratedError.isInstance(error)) return refusal(diagnoseModelOutput(view, schema, validateNodeResult, error.text, error.message));
      // A model, network or abort error: rethrown, so the attempt records EFFECT_FAILED with its message.
      throw error;
    }
    let answer: MemberOutput;
    try {
      // Parsed from JSON text, so `data` is JSON (the executor checks it again before recording).
      answer = generated.output as MemberOutput;
    } catch (error) {
      if (!NoOutputGeneratedError.isInstance(error)) throw error;
      return refusal(
        `The model gave no final answer: it stopped with finish reason "${generated.finishReason}" after ${generated.steps.length} step(s) (maxSteps ${maxSteps}).`,
      );
    }
    const usage = turnUsage(generated.totalUsage);
    const memberUsage = addUsage(previousMemberUsage(input.result), usage);
    const data: Record<string, Json> = {
      model,
      usage: usageJson(usage),
      memberUsage: usageJson(memberUsage),
      finishReason: generated.finishReason,
    };
    if (answer.data !== undefined) data['output'] = answer.data;
    return { summary: answer.summary, ...(answer.posts === undefined ? {} : { posts: answer.posts }), data };
  };

  const binding: AiSdkMemberBinding = {
    run,
    contract: modelOutputContract,
    retrySafe: options.retrySafe ?? !hasTools,
    retry: options.retry ?? DEFAULT_AI_SDK_RETRY,
    ...(options.limits === undefined ? {} : { limits: options.limits }),
    ...(options.tokenBudget === undefined ? {} : { decideAction: tokenBudgetAction(options.tokenBudget) }),
  };
  return Object.freeze(binding);
}

/**
 * The AI SDK's spans are wanted when the attempt's span records (a tracer provider is
 * registered) or the caller gave the SDK a tracer of its own; otherwise they would be dropped
 * as children of an unsampled span, and building their attributes costs time on every turn.
 */
function telemetryWanted(telemetry: TelemetrySettings | undefined): boolean {
  if (telemetry?.isEnabled !== undefined) return telemetry.isEnabled;
  return telemetry?.tracer !== undefined || trace.getActiveSpan()?.isRecording() === true;
}

/** Denies the attempt once the member's recorded usage has reached its budget. */
function tokenBudgetAction(budget: number) {
  return (ctx: AiSdkMemberContext): NodeAction => {
    const used = previousMemberUsage((ctx.input as unknown as TeamDispatchInput).result).totalTokens;
    return used >= budget ? { kind: 'deny', reason: TOKEN_BUDGET_EXHAUSTED } : { kind: 'allow' };
  };
}

function modelIdentity(model: LanguageModel): Json {
  if (typeof model === 'string') return { provider: 'gateway', modelId: model };
  return { provider: model.provider, modelId: model.modelId };
}

function isPositiveSafeInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
}

function checkOptions(options: AiSdkMemberOptions): void {
  const refuse = (message: string): never => {
    throw new AiSdkMemberError('INVALID_MEMBER_OPTIONS', message);
  };
  if (typeof options !== 'object' || options === null || options.model === undefined || options.model === null) refuse('aiSdkMember needs options with a model.');
  if (options.maxSteps !== undefined && !isPositiveSafeInteger(options.maxSteps)) refuse('maxSteps must be a positive safe integer.');
  if (options.tokenBudget !== undefined && !isPositiveSafeInteger(options.tokenBudget)) refuse('tokenBudget must be a positive safe integer (total tokens).');
  if (options.maxRetries !== undefined && !(Number.isSafeInteger(options.maxRetries) && options.maxRetries >= 0)) refuse('maxRetries must be a non-negative safe integer.');
  if (options.retry !== undefined && !isPositiveSafeInteger(options.retry.maxAttempts)) refuse('retry.maxAttempts must be a positive safe integer.');
}

