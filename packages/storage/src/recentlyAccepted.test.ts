import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { recentlyAccepted } from './recentlyAccepted.js';
import { isStreamId } from './index.js';

describe('recentlyAccepted', () => {
  it('answers as its check does for any sequence of strings, and checks a remembered one only once', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 6 }), fc.array(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'bad', '', 'x y'), { maxLength: 40 }), (size, values) => {
        const rule = (value: string) => /^[a-z]+$/.test(value) && value !== 'bad';
        const checked: string[] = [];
        const accepts = recentlyAccepted(size, (value) => {
          checked.push(value);
          return rule(value);
        });
        for (const value of values) expect(accepts(value)).toBe(rule(value));
        // A refused string is checked every time; an accepted one again only once it was pushed out.
        expect(checked.filter((value) => !rule(value))).toEqual(values.filter((value) => !rule(value)));
        if (size >= 5) expect(new Set(checked.filter(rule)).size).toBe(checked.filter(rule).length);
      }),
    );
  });

  it('refuses what is not a string, whatever it remembers', () => {
    const accepts = recentlyAccepted(2, () => true);
    expect(accepts('1')).toBe(true);
    expect(accepts(1)).toBe(false);
    expect(accepts(null)).toBe(false);
    expect(accepts({ toString: () => '1' })).toBe(false);
  });

  it('isStreamId still refuses a bad id right after accepting a good one', () => {
    expect(isStreamId('run-1')).toBe(true);
    expect(isStreamId('run-1 ')).toBe(false);
    expect(isStreamId('run-1')).toBe(true);
    expect(isStreamId('-run')).toBe(false);
  });
});
