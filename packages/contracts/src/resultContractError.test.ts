import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { RoundtableError, isRoundtableError } from '@roundtable/core';
import { GraphValidationError } from '@roundtable/graph';
import { ResultContractError, defineResultContract, isResultContractError } from './index.js';

/** What `run` throws, as a rejection (it must throw). */
const refusalOf = (run: () => unknown): Promise<unknown> => Promise.resolve().then(run).then(() => expect.unreachable('expected a throw'), (error: unknown) => error);

describe('isResultContractError', () => {
  const contract = defineResultContract({ name: 'summary', version: 1, schema: z.object({ summary: z.string() }) });

  it('recognises what validate and defineResultContract throw, by code', async () => {
    const refused = await refusalOf(() => contract.validate({ summary: 3 }));
    expect(isResultContractError(refused)).toBe(true);
    expect(isResultContractError(refused, 'RESULT_INVALID')).toBe(true);
    expect(isResultContractError(refused, 'INVALID_CONTRACT')).toBe(false);
    expect(isRoundtableError(refused, 'RESULT_INVALID')).toBe(true);
    const badDefinition = await refusalOf(() => defineResultContract({ name: ' x', version: 1, schema: z.string() }));
    expect(isResultContractError(badDefinition, 'INVALID_CONTRACT')).toBe(true);
    if (isResultContractError(refused)) expect(refused.issues.map((issue) => issue.path)).toEqual(['/summary']);
  });

  it('refuses errors of other classes with the same code, and non-errors', () => {
    expect(isResultContractError(new GraphValidationError([{ code: 'RESULT_INVALID', path: '', message: 'no' }]), 'RESULT_INVALID')).toBe(false);
    expect(isResultContractError(new RoundtableError('RESULT_INVALID', 'no'))).toBe(false);
    expect(isResultContractError(Object.assign(new Error('no'), { code: 'RESULT_INVALID' }))).toBe(false);
    expect(isResultContractError(undefined)).toBe(false);
  });

  it('recognises an error from another installed copy of the package by its Symbol.for marker', () => {
    class CopiedResultContractError extends RoundtableError<'RESULT_INVALID'> {
      static override readonly marker: symbol = Symbol.for('@roundtable/contracts/result-contract-error');
    }
    expect(ResultContractError.marker).toBe(CopiedResultContractError.marker);
    expect(isResultContractError(new CopiedResultContractError('RESULT_INVALID', 'copy'), 'RESULT_INVALID')).toBe(true);
  });
});
