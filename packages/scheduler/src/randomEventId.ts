import { randomFillSync } from 'node:crypto';

/** UUIDs made from one fill of random bytes. */
const POOL = 256;
const random = Buffer.alloc(16 * POOL);
let next = POOL;
const text = Buffer.alloc(36);
const HEX = Buffer.from('0123456789abcdef', 'latin1');

/**
 * A random (version 4) UUID, as `crypto.randomUUID` makes, from the same cryptographic random
 * source, written into a buffer and read as one flat string: `randomUUID` joins its UUID from
 * about twenty pieces, which the first hash or comparison of the id (the storage's duplicate
 * checks, a Set of ids) flattens into a copy, about 700 bytes of garbage per event.
 */
export function randomEventId(): string {
  if (next === POOL) {
    randomFillSync(random);
    next = 0;
  }
  const at = next++ * 16;
  let out = 0;
  for (let i = 0; i < 16; i++) {
    let byte = random[at + i]!;
    if (i === 6) byte = (byte & 0x0f) | 0x40; // version 4
    else if (i === 8) byte = (byte & 0x3f) | 0x80; // variant 10xx (RFC 9562)
    if (i === 4 || i === 6 || i === 8 || i === 10) text[out++] = 0x2d;
    text[out++] = HEX[byte >> 4]!;
    text[out++] = HEX[byte & 0x0f]!;
  }
  return text.toString('latin1', 0, 36);
}
