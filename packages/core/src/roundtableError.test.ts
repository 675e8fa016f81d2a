import { describe, expect, expectTypeOf, it } from 'vitest';
import { RoundtableError, errorGuard, isRoundtableError } from './index.js';

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

describe('errorGuard: one marker check for every error class', () => {
  type ShelfCode = 'SHELF_EMPTY' | 'SHELF_FULL';
  class ShelfError extends RoundtableError<ShelfCode> {
    static override readonly marker: symbol = Symbol.for('@roundtable/test/ShelfError');
    override name = 'ShelfError';
  }
  class TopShelfError extends ShelfError {
    static override readonly marker: symbol = Symbol.for('@roundtable/test/TopShelfError');
    override name = 'TopShelfError';
  }
  /** The same class as another installed copy of its package defines it: same marker, another class. */
  class CopiedShelfError extends RoundtableError<ShelfCode> {
    static override readonly marker: symbol = Symbol.for('@roundtable/test/ShelfError');
  }
  class OtherError extends RoundtableError<'SHELF_EMPTY'> {
    static override readonly marker: symbol = Symbol.for('@roundtable/test/OtherError');
  }
  const isShelfError = errorGuard(ShelfError);
  const isTopShelfError = errorGuard(TopShelfError);

  it('recognises the class, its copies and its subclasses, with or without a code, and nothing else', () => {
    const error = new ShelfError('SHELF_FULL', 'The shelf is full.', { details: { size: 3 } });
    expect(error.name).toBe('ShelfError');
    expect(error.code).toBe('SHELF_FULL');
    expect(error.details).toEqual({ size: 3 });
    expect(isShelfError(error)).toBe(true);
    expect(isShelfError(error, 'SHELF_FULL')).toBe(true);
    expect(isShelfError(error, 'SHELF_EMPTY')).toBe(false);
    expect(isRoundtableError(error, 'SHELF_FULL')).toBe(true);
    expect(isShelfError(new CopiedShelfError('SHELF_EMPTY', 'x'), 'SHELF_EMPTY')).toBe(true);
    // A subclass carries its parents' markers; a parent does not carry its subclass's.
    const top = new TopShelfError('SHELF_EMPTY', 'y');
    expect(isShelfError(top, 'SHELF_EMPTY') && isTopShelfError(top) && isRoundtableError(top)).toBe(true);
    expect(isTopShelfError(error)).toBe(false);
    // Same code, other class: not a shelf error. A plain RoundtableError is not either.
    expect(isShelfError(new OtherError('SHELF_EMPTY', 'z'))).toBe(false);
    expect(isShelfError(new RoundtableError('SHELF_EMPTY', 'z'))).toBe(false);
    expect(isShelfError(Object.assign(new Error('x'), { code: 'SHELF_EMPTY' }))).toBe(false);
    expect(isShelfError(null) || isShelfError('SHELF_EMPTY') || isShelfError(undefined)).toBe(false);
  });

  it('is typed: it narrows to the class and takes only the codes of the class', () => {
    expectTypeOf(isShelfError).guards.toEqualTypeOf<ShelfError>();
    expectTypeOf(isShelfError).parameter(1).toEqualTypeOf<ShelfCode | undefined>();
    const error: unknown = new ShelfError('SHELF_EMPTY', 'empty');
    if (isShelfError(error)) expectTypeOf(error.code).toEqualTypeOf<ShelfCode>();
    // @ts-expect-error a code the class does not have
    expect(isShelfError(error, 'NOT_A_SHELF_CODE')).toBe(false);
  });

  it('keeps markers out of sight: not enumerable, not copied by a spread, not in JSON', () => {
    const error = new ShelfError('SHELF_FULL', 'full');
    expect(Object.getOwnPropertySymbols(error)).toEqual(expect.arrayContaining([ShelfError.marker, RoundtableError.marker]));
    expect(Object.getOwnPropertySymbols({ ...error })).toEqual([]);
    expect(isShelfError({ ...error })).toBe(false);
    expect(JSON.parse(JSON.stringify(error))).toEqual({ name: 'ShelfError', code: 'SHELF_FULL' });
  });
});
