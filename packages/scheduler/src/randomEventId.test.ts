import { describe, expect, it, vi } from 'vitest';
import { randomEventId } from './randomEventId.js';

const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** The 48-bit millisecond field of a version 7 UUID. */
const millisecondOf = (id: string) => Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16);

describe('randomEventId', () => {
  it('makes distinct version 7 UUIDs, across many fills of its random pool', () => {
    const ids = Array.from({ length: 5000 }, () => randomEventId());
    for (const id of ids) expect(id).toMatch(V7);
    expect(new Set(ids).size).toBe(ids.length);
    // Every hex digit outside the fixed and time bits shows up in the random part: the bytes are used, not repeated.
    expect(new Set(ids.map((id) => id[24])).size).toBe(16);
    expect(new Set(ids.map((id) => id[35])).size).toBe(16);
  });

  it('carries the millisecond it was made in', () => {
    const before = Date.now();
    const id = randomEventId();
    const after = Date.now();
    // At least `before`; later only by the ids this process made in the same milliseconds before it.
    expect(millisecondOf(id)).toBeGreaterThanOrEqual(before);
    expect(millisecondOf(id)).toBeLessThanOrEqual(after + 2);
  });

  it('is strictly increasing, within one millisecond, past 4,096 ids in it, and when the clock steps back', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      // Later than any id made so far in this process (earlier tests made some at the real time).
      const at = Date.parse('2099-01-01T12:00:00.000Z');
      vi.setSystemTime(at);
      const ids = Array.from({ length: 10_000 }, () => randomEventId());
      vi.setSystemTime(at - 60_000);
      ids.push(...Array.from({ length: 10 }, () => randomEventId()));
      vi.setSystemTime(at + 60_000);
      ids.push(randomEventId());
      for (const id of ids) expect(id).toMatch(V7);
      for (let i = 1; i < ids.length; i++) expect(ids[i]! > ids[i - 1]!, `id ${i}`).toBe(true);
      expect(millisecondOf(ids[0]!)).toBe(at);
      // 10,000 ids in one millisecond spill over into the next two; the clock stepping back does not move them back.
      expect(millisecondOf(ids[9_999]!)).toBe(at + 2);
      expect(millisecondOf(ids[10_009]!)).toBe(at + 2);
      expect(millisecondOf(ids.at(-1)!)).toBe(at + 60_000);
    } finally {
      vi.useRealTimers();
    }
  });
});
