import { describe, expect, it } from 'vitest';
import { RoundtableError, isRoundtableError } from './index.js';

describe('RoundtableError', () => {
  it('carries code, message, details and cause', () => {
    const cause = new Error('root');
    const error = new RoundtableError('SOME_CODE', 'Something failed.', { details: { n: 1 }, cause });
    expect(error).toBeInstanceOf(Error);
    expect(error.code).toBe('SOME_CODE');
    expect(error.message).toBe('Something failed.');
    expect(error.details).toEqual({ n: 1 });
    expect(error.cause).toBe(cause);
  });

  it('is recognised by its Symbol.for marker, across copies, with or without a code', () => {
    const error = new RoundtableError('A', 'a');
    expect(isRoundtableError(error)).toBe(true);
    expect(isRoundtableError(error, 'A')).toBe(true);
    expect(isRoundtableError(error, 'B')).toBe(false);
    // An error made by another installed copy of the package: same global symbol, different class.
    const foreign = Object.assign(new Error('x'), { code: 'A', [Symbol.for('@roundtable/error')]: true });
    expect(isRoundtableError(foreign, 'A')).toBe(true);
    expect(isRoundtableError(Object.assign(new Error('x'), { code: 'A' }))).toBe(false);
    expect(isRoundtableError(null)).toBe(false);
    expect(isRoundtableError('A')).toBe(false);
  });
});
