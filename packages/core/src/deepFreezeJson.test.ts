import { describe, expect, it } from 'vitest';
import { copyFrozenJson, deepFreezeJson, jsonHeight } from './index.js';

describe('deepFreezeJson', () => {
  it('freezes a parsed value in place, once, and refuses what is not JSON', () => {
    const parsed = JSON.parse('{"a":[{"b":1}],"c":"x"}') as { a: { b: number }[]; c: string };
    expect(deepFreezeJson(parsed)).toBe(parsed);
    expect(Object.isFrozen(parsed) && Object.isFrozen(parsed.a) && Object.isFrozen(parsed.a[0])).toBe(true);
    expect(copyFrozenJson(parsed)).toBe(parsed);
    expect(jsonHeight(parsed)).toBe(3);
    expect(() => deepFreezeJson({ bad: Number.NaN })).toThrow(/not finite/);
  });

});
