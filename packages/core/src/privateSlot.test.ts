import { describe, expect, it } from 'vitest';
import { privateSlot } from './privateSlot.js';

describe('privateSlot', () => {
  it('keeps a value on the objects it is given, invisibly, replaceable after freezing', () => {
    const slot = privateSlot<number>();
    const target = { a: 1 };
    expect(slot.add(target, 7)).toBe(target);
    Object.freeze(target);
    expect(slot.get(target)).toBe(7);
    expect(slot.has(target)).toBe(true);
    expect(slot.set(target, 8)).toBe(true);
    expect(slot.get(target)).toBe(8);
    expect(Reflect.ownKeys(target)).toEqual(['a']);
    expect(JSON.stringify(target)).toBe('{"a":1}');
    expect(target).toEqual({ a: 1 });
  });

  it('tells objects without the slot, and keeps two slots apart', () => {
    const first = privateSlot<string>();
    const second = privateSlot<string>();
    const target = first.add([1], 'first');
    expect(second.get(target)).toBeUndefined();
    expect(second.has(target)).toBe(false);
    expect(second.set(target, 'second')).toBe(false);
    expect(first.get({})).toBeUndefined();
    for (const other of [null, undefined, 1, 'a', true, () => 0]) expect(first.has(other)).toBe(false);
  });
});
