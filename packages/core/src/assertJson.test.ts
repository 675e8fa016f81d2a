import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { JsonValueError, MAX_JSON_DEPTH, assertJson, isJson, isRoundtableError } from './index.js';

function failure(value: unknown): JsonValueError {
  try {
    assertJson(value);
  } catch (error) {
    expect(error).toBeInstanceOf(JsonValueError);
    return error as JsonValueError;
  }
  throw new Error('expected assertJson to throw');
}

function nest(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}

describe('assertJson', () => {
  it('accepts JSON values', () => {
    for (const value of [null, true, false, 0, -1.5, 'text', '😀', [], {}, [1, 'a', null], { a: { b: [1, { c: 'd' }] } }]) {
      expect(() => assertJson(value)).not.toThrow();
      expect(isJson(value)).toBe(true);
    }
    expect(isJson(Object.create(null) as object)).toBe(true);
  });

  it('accepts any JSON.parse result (property)', () => {
    fc.assert(fc.property(fc.json(), (text) => isJson(JSON.parse(text))));
  });

  it.each([
    ['undefined', undefined, ''],
    ['NaN', Number.NaN, ''],
    ['Infinity', Number.POSITIVE_INFINITY, ''],
    ['a bigint', 1n, ''],
    ['a function', () => 1, ''],
    ['a symbol', Symbol('x'), ''],
    ['a date', new Date(0), ''],
    ['a map', new Map(), ''],
    ['a class instance', new (class Box {})(), ''],
    ['a nested undefined', { a: [1, undefined] }, '/a/1'],
    ['a lone high surrogate', { s: 'a\ud800' }, '/s'],
    ['a lone low surrogate', ['\udc00b'], '/0'],
    ['a key with a lone surrogate', { '\ud800': 1 }, '/\ud800'],
    // eslint-disable-next-line no-sparse-arrays -- the point of the case
    ['a sparse array', [1, , 3], ''],
    ['an escaped pointer', { 'a/b': { '~': Number.NaN } }, '/a~1b/~0'],
  ])('rejects %s with INVALID_JSON_VALUE and a JSON-pointer path', (_name, value, path) => {
    const error = failure(value);
    expect(error.code).toBe('INVALID_JSON_VALUE');
    expect(isRoundtableError(error, 'INVALID_JSON_VALUE')).toBe(true);
    expect(error.path).toBe(path);
  });

  it('rejects cycles', () => {
    const value: Record<string, unknown> = { a: 1 };
    value.self = value;
    expect(failure(value).path).toBe('/self');
  });

  it('accepts a shared (acyclic) reference', () => {
    const shared = { x: 1 };
    expect(isJson({ a: shared, b: [shared] })).toBe(true);
  });

  it('rejects symbol keys, accessors and non-enumerable properties', () => {
    expect(failure({ [Symbol('k')]: 1 }).code).toBe('INVALID_JSON_VALUE');
    expect(failure(Object.defineProperty({}, 'a', { get: () => 1, enumerable: true })).path).toBe('/a');
    expect(failure(Object.defineProperty({}, 'hidden', { value: 1, enumerable: false })).code).toBe('INVALID_JSON_VALUE');
    const withExtra = Object.assign([1], { extra: true });
    expect(failure(withExtra).code).toBe('INVALID_JSON_VALUE');
  });

  it('allows nesting up to 256 deep and no deeper', () => {
    expect(isJson(nest(MAX_JSON_DEPTH))).toBe(true);
    expect(failure(nest(MAX_JSON_DEPTH + 1)).message).toMatch(/deeper than 256/);
  });
});
