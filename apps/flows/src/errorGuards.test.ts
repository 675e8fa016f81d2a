import { describe, expect, it } from 'vitest';
import { AiSdkMemberError, isAiSdkMemberError } from '@roundtable/ai-sdk';
import { CliError, isCliError } from '@roundtable/cli';
import { TeamError, isTeamError } from '@roundtable/team';
import { WorkersError, isWorkersError } from '@roundtable/workers';
import {
  GraphExecutionError,
  GraphValidationError,
  JsonValueError,
  ResultContractError,
  RoomsError,
  RoundtableError,
  StorageError,
  isGraphExecutionError,
  isGraphValidationError,
  isJsonValueError,
  isResultContractError,
  isRoomsError,
  isRoundtableError,
  isStorageError,
} from '@roundtable/runtime';

/** One error of every class the project throws, beside its class and its guard. */
const classes = [
  { type: JsonValueError, guard: isJsonValueError, error: new JsonValueError('/a', 'Not JSON.') },
  { type: GraphValidationError, guard: isGraphValidationError, error: new GraphValidationError([{ code: 'INVALID_ID', path: '/id', message: 'Bad id.' }]) },
  { type: GraphExecutionError, guard: isGraphExecutionError, error: new GraphExecutionError('PROTOCOL', 'Out of protocol.') },
  { type: StorageError, guard: isStorageError, error: new StorageError('STORAGE_CLOSED', 'Closed.') },
  { type: RoomsError, guard: isRoomsError, error: new RoomsError('INVALID_ROOMS_OPTIONS', 'No options.') },
  { type: ResultContractError, guard: isResultContractError, error: new ResultContractError('RESULT_INVALID', 'Refused.') },
  { type: AiSdkMemberError, guard: isAiSdkMemberError, error: new AiSdkMemberError('RESULT_INVALID', 'Refused.') },
  { type: CliError, guard: isCliError, error: new CliError('RUN_NOT_FOUND', 'No run.') },
  { type: WorkersError, guard: isWorkersError, error: new WorkersError('RUN_NOT_FOUND', 'No run.') },
  { type: TeamError, guard: isTeamError, error: new TeamError('GIT_FAILED', 'git failed.') },
] as const;

describe('the error classes of every package', () => {
  it('each guard recognises its own class only, even where two classes share a code', () => {
    for (const { type, guard } of classes) {
      for (const other of classes) {
        expect(guard(other.error), `${type.name} guard on a ${other.type.name}`).toBe(other.type === type);
      }
      expect(guard(new RoundtableError('RUN_NOT_FOUND', 'plain'))).toBe(false);
    }
  });

  it('are Roundtable errors with a name, a code, and a distinct Symbol.for marker of their own', () => {
    const markers = new Set<symbol>();
    for (const { type, guard, error } of classes) {
      expect(isRoundtableError(error, error.code)).toBe(true);
      // Each guard takes only its own class's codes; the table mixes classes.
      expect((guard as (error: unknown, code?: string) => boolean)(error, error.code)).toBe(true);
      expect(error.name).toBe(type.name);
      expect(Object.hasOwn(type, 'marker')).toBe(true);
      expect(Symbol.keyFor(type.marker), type.name).toMatch(/^@roundtable\//);
      markers.add(type.marker);
    }
    expect(markers.size).toBe(classes.length);
    expect(markers.has(RoundtableError.marker)).toBe(false);
  });
});
