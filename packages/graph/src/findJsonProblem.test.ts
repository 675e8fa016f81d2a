import { describe, expect, it } from 'vitest';
import { findJsonProblem } from './index.js';

describe('findJsonProblem', () => {
  it('returns null for JSON', () => {
    for (const value of [null, 1, 'x', [1, { a: [true] }], {}]) expect(findJsonProblem(value)).toBeNull();
  });

  it.each([
    ['undefined at the top', undefined, '', 'undefined'],
    ['a nested undefined', { a: [1, undefined] }, '/a/1', 'undefined'],
    ['a Date', { when: new Date(0) }, '/when', 'a Date'],
    ['NaN', [Number.NaN], '/0', 'NaN'],
    ['Infinity', { x: Number.POSITIVE_INFINITY }, '/x', 'Infinity'],
    ['a BigInt', 2n, '', 'a BigInt'],
    ['a function', { run() {} }, '/run', 'a function'],
    ['a symbol', [Symbol('s')], '/0', 'a symbol'],
    ['a Map', { m: new Map() }, '/m', 'a Map'],
    ['a class instance', { box: new (class Box {})() }, '/box', 'a Box'],
    ['a getter', Object.defineProperty({}, 'g', { get: () => 1, enumerable: true }), '/g', 'an accessor property (a getter)'],
    ['a lone surrogate', { s: '\udc00' }, '/s', 'a string with a lone surrogate'],
    ['an escaped key', { 'a/b': { '~': undefined } }, '/a~1b/~0', 'undefined'],
  ])('names %s and its JSON pointer', (_name, value, path, found) => {
    expect(findJsonProblem(value)).toEqual({ path, found, message: `Found ${found}, which is not JSON.` });
  });

  it('falls back to the rule that was broken when the value itself is not the problem', () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    const problem = findJsonProblem(cycle)!;
    expect(problem.path).toBe('/self');
    expect(problem.message).toMatch(/cycle/);
  });

  it('never throws for a hostile Proxy', () => {
    const hostile = new Proxy(
      {},
      {
        getPrototypeOf() {
          throw new Error('trap');
        },
        ownKeys() {
          throw new Error('trap');
        },
      },
    );
    expect(findJsonProblem(hostile)?.found).toBe('a value that cannot be read');
    expect(findJsonProblem({ nested: hostile })?.found).toBe('a value that cannot be read');
  });
});
