import { describe, expect, it } from 'vitest';
import { randomEventId } from './randomEventId.js';

describe('randomEventId', () => {
  it('makes distinct version 4 UUIDs, across many fills of its random pool', () => {
    const ids = Array.from({ length: 5000 }, () => randomEventId());
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(ids).size).toBe(ids.length);
    // Every hex digit outside the fixed bits shows up in every position: the bytes are used, not repeated.
    const digits = new Set(ids.map((id) => id[0]));
    expect(digits.size).toBe(16);
  });
});
