import { TeamTurnResultSchema } from '@roundtable/graph';
import type { CompiledGraph, TeamTurnResult } from '@roundtable/graph';
import { defineResultContract, refuse } from './defineResultContract.js';
import type { ResultContract } from './defineResultContract.js';
import { ResultContractError } from './resultContractError.js';

/**
 * The contract of one team member's results: the `TeamTurnResult` shape, then the compiled
 * graph's own `validateNodeResult` (room membership of sender and mentions), so those rules
 * have exactly one copy. Where the definition was a literal, `memberId` must be one of its ids.
 */
export function teamResultContract<State, MemberId extends string = string>(
  graph: CompiledGraph<State, MemberId>,
  memberId: NoInfer<MemberId>,
): ResultContract<TeamTurnResult> {
  const validateNodeResult = graph.validateNodeResult;
  if (graph.kind !== 'team' || validateNodeResult === undefined) {
    throw new ResultContractError('INVALID_CONTRACT', 'teamResultContract needs a compiled team graph.');
  }
  if (!graph.definition.value.nodes.some((node) => node.id === memberId)) {
    throw new ResultContractError('INVALID_CONTRACT', `Member "${memberId}" is not declared by this team.`);
  }
  const shape = defineResultContract({ name: 'team-turn-result', version: 1, schema: TeamTurnResultSchema });
  return Object.freeze({
    record: shape.record,
    jsonSchema: shape.jsonSchema,
    validate(value: unknown): TeamTurnResult {
      const parsed = shape.validate(value);
      const issue = validateNodeResult(memberId, parsed);
      if (issue !== null) throw refuse('team-turn-result', [issue]);
      return parsed;
    },
  });
}
