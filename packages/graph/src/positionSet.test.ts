import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { PositionSet } from './positionSet.js';

/** Positions that are numbered (bits), near-numbered (strings) or neither, over a few prefixes. */
const position = fc.oneof(
  fc.tuple(fc.constantFrom('team/a', 'team/b', 'x', ''), fc.nat({ max: 300 })).map(([prefix, turn]) => `${prefix}/${turn}`),
  fc.tuple(fc.constantFrom('team/a', 'team/b'), fc.integer({ min: 0, max: 2_000_000_000 })).map(([prefix, turn]) => `${prefix}/${turn}`),
  fc.tuple(fc.constantFrom('team/a', 'y'), fc.constantFrom('01', '007', '-1', '1.5', '', ' 1', '1e3', '1234567890', '99999999999', 'a')).map(([prefix, turn]) => `${prefix}/${turn}`),
  fc.constantFrom('team/a', 'plain', '', '/', '5'),
  fc.string({ maxLength: 6 }),
);

describe('PositionSet (the folder\'s set of dispatched positions)', () => {
  it('answers has and add exactly as a Set of strings does, wherever it keeps a position', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.boolean(), position), { maxLength: 400 }), (steps) => {
        const set = new PositionSet();
        const model = new Set<string>();
        for (const [adding, value] of steps) {
          if (adding) {
            expect(set.add(value)).toBe(!model.has(value));
            model.add(value);
          }
          expect(set.has(value)).toBe(model.has(value));
        }
        for (const value of model) expect(set.has(value)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('keeps the turns of a long run, finds each once, and tells near misses apart', () => {
    const set = new PositionSet();
    for (let turn = 1; turn <= 5000; turn++) {
      expect(set.add(`team/ping/${turn}`)).toBe(true);
      expect(set.add(`team/pong/${turn}`)).toBe(true);
    }
    for (let turn = 1; turn <= 5000; turn++) expect(set.add(`team/ping/${turn}`)).toBe(false);
    expect(set.has('team/ping/0')).toBe(false);
    expect(set.has('team/ping/5001')).toBe(false);
    expect(set.has('team/ping/01')).toBe(false);
    expect(set.has('team/pin/1')).toBe(false);
    expect(set.has('team/ping/1/1')).toBe(false);
    // A turn far beyond the dense range is kept as its string, and found again once the bits have grown past it.
    expect(set.add('team/new/4000')).toBe(true);
    for (let turn = 1; turn <= 4100; turn++) expect(set.add(`team/new/${turn}`)).toBe(turn !== 4000);
    expect(set.has('team/new/4000')).toBe(true);
  });
});
