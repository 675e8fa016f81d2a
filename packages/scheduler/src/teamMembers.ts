import { TeamGraphResultSchema } from '@roundtable/graph';
import type { CompiledGraph, TeamDispatchInput, TeamGraphResult, TeamState, TeamTurnResult } from '@roundtable/graph';
import type { GraphRunResult } from './graphRunResult.js';
import { resolveBindings } from './nodeBinding.js';
import type { NodeAction, NodeBinding, NodeBindingObject, NodeContext } from './nodeBinding.js';

/** A team member's context: `input` is the team's dispatch input. */
export interface TeamMemberContext extends Omit<NodeContext, 'input'> {
  readonly input: TeamDispatchInput;
}

/** A team member's work: returns (or resolves to) its turn result. */
export type TeamMemberRun = (ctx: TeamMemberContext) => TeamTurnResult | Promise<TeamTurnResult>;

/** A binding object whose `run` and `decideAction` see the team's typed context. */
export interface TeamMemberBindingObject extends Omit<NodeBindingObject, 'run' | 'decideAction'> {
  run(ctx: TeamMemberContext): TeamTurnResult | Promise<TeamTurnResult>;
  decideAction?(ctx: TeamMemberContext): NodeAction | Promise<NodeAction>;
}

export type TeamMemberBinding = TeamMemberRun | TeamMemberBindingObject;

/**
 * One binding per member id. When the compiled definition was a literal its ids are known to
 * TypeScript, so a missing or misspelled key is a compile error; otherwise any string key
 * type-checks and `teamMembers` checks the keys when it runs.
 */
export type TeamMemberBindings<MemberId extends string> = string extends MemberId
  ? Readonly<Record<string, TeamMemberBinding>>
  : { readonly [Id in MemberId]: TeamMemberBinding };

/**
 * Typed bindings for a compiled team (SPEC 11.8): each member's `ctx.input` is a
 * `TeamDispatchInput` and its result a `TeamTurnResult`. The keys must be exactly the team's
 * member ids: MISSING_NODE_BINDING or UNKNOWN_NODE_BINDING at run time, always, and at compile
 * time where the definition passed to `compileGraph` was a literal. The result is a frozen
 * `nodes` object for `createGraphExecutor`.
 */
export function teamMembers<MemberId extends string>(
  graph: CompiledGraph<TeamState, MemberId>,
  bindings: TeamMemberBindings<NoInfer<MemberId>>,
): Readonly<Record<MemberId, NodeBinding>> {
  resolveBindings(graph as CompiledGraph<unknown>, bindings);
  // The member functions read the team input where NodeRun is declared with Json: the same
  // value, typed by the graph that produces it.
  return Object.freeze({ ...(bindings as unknown as Record<MemberId, NodeBinding>) });
}

/**
 * A completed team run's output, typed: the `TeamGraphResult` when `result` is `complete` and
 * its output has that shape, else null (a failure, a pause, waiting, or another graph's output).
 */
export function teamOutput(result: GraphRunResult): TeamGraphResult | null {
  if (result.kind !== 'complete') return null;
  return TeamGraphResultSchema.safeParse(result.output).success ? (result.output as unknown as TeamGraphResult) : null;
}

/** One member's last successful result in a team's output, or null when it never had a turn (or is not a member). */
export function teamMemberResult(output: TeamGraphResult, memberId: string): TeamTurnResult | null {
  return output.agents.find((agent) => agent.name === memberId)?.result ?? null;
}
