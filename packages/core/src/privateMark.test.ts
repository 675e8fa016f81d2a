import { describe, expect, it } from 'vitest';
import { privateMark } from './privateMark.js';

describe('privateMark', () => {
  it('marks the objects it is given, invisibly, and tells them from every other value', () => {
    const mark = privateMark();
    const marked = { a: 1, list: [1] };
    expect(mark.add(marked)).toBe(marked);
    Object.freeze(marked);
    expect(mark.has(marked)).toBe(true);
    expect(mark.has({ a: 1, list: [1] })).toBe(false);
    for (const other of [null, undefined, 1, 'a', true, [], () => 0]) expect(mark.has(other)).toBe(false);
    // Nothing a reflection API, JSON or equality can see.
    expect(Reflect.ownKeys(marked)).toEqual(['a', 'list']);
    expect(JSON.stringify(marked)).toBe('{"a":1,"list":[1]}');
    expect(marked).toEqual({ a: 1, list: [1] });
    expect(Object.getPrototypeOf(marked)).toBe(Object.prototype);
  });

  it('keeps two marks apart, and marks arrays too', () => {
    const first = privateMark();
    const second = privateMark();
    const array = first.add([1, 2]);
    expect(first.has(array)).toBe(true);
    expect(second.has(array)).toBe(false);
    expect(Array.isArray(array)).toBe(true);
  });
});
