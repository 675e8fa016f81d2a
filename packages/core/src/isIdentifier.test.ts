import { describe, expect, it } from 'vitest';
import { isIdentifier } from './index.js';

describe('isIdentifier', () => {
  it.each(['a', 'writer', 'team/writer/1', '../outside.txt', 'x'.repeat(300), 'a b', 'ünïcode', '😀'])('accepts %j', (id) => {
    expect(isIdentifier(id)).toBe(true);
  });

  it.each(['', ' a', 'a ', 'a\n', '\ta', 'a\u007f', 'a\u0000b', 'a\u001fb', '\u00a0a', 1, null, undefined, ['a']])('rejects %j', (id) => {
    expect(isIdentifier(id)).toBe(false);
  });
});
