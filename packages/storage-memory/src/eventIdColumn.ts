import { Int32Rows } from './chunkedRows.js';

/** Where each byte's two hex digits start in a UUID's 36-character text (`8-4-4-4-12`). */
const DIGITS_AT = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34] as const;
const DASH = 45;
const HEX_CODES = Array.from('0123456789abcdef', (digit) => digit.charCodeAt(0));
/** By char code: the value of a lowercase hex digit, -1 for any other code below 128. */
const HEX_VALUES = new Int8Array(128).fill(-1);
for (const [value, code] of HEX_CODES.entries()) HEX_VALUES[code] = value;

/**
 * Writes the 16 bytes of `id` at `bytes[offset …]` when `id` is a UUID in its canonical
 * lowercase text (the only text that reads back from the bytes exactly); false otherwise, the
 * bytes then being garbage.
 */
function packUuid(id: string, bytes: Uint8Array, offset: number): boolean {
  if (id.length !== 36) return false;
  if (id.charCodeAt(8) !== DASH || id.charCodeAt(13) !== DASH || id.charCodeAt(18) !== DASH || id.charCodeAt(23) !== DASH) return false;
  for (let byte = 0; byte < 16; byte++) {
    const at = DIGITS_AT[byte]!;
    const highCode = id.charCodeAt(at);
    const lowCode = id.charCodeAt(at + 1);
    if ((highCode | lowCode) >= 128) return false;
    const high = HEX_VALUES[highCode]!;
    const low = HEX_VALUES[lowCode]!;
    if ((high | low) < 0) return false;
    bytes[offset + byte] = (high << 4) | low;
  }
  return true;
}

/**
 * The UUID text of the 16 bytes at `bytes[offset …]`, as one flat string. One
 * `String.fromCharCode` of 36 arguments: about twice as fast as `apply` of an array, and five
 * times as fast as joining hex pairs (which also builds a cons string a later hash flattens).
 */
function unpackUuid(bytes: Uint8Array, offset: number): string {
  const h = HEX_CODES;
  const b0 = bytes[offset]!, b1 = bytes[offset + 1]!, b2 = bytes[offset + 2]!, b3 = bytes[offset + 3]!;
  const b4 = bytes[offset + 4]!, b5 = bytes[offset + 5]!, b6 = bytes[offset + 6]!, b7 = bytes[offset + 7]!;
  const b8 = bytes[offset + 8]!, b9 = bytes[offset + 9]!, b10 = bytes[offset + 10]!, b11 = bytes[offset + 11]!;
  const b12 = bytes[offset + 12]!, b13 = bytes[offset + 13]!, b14 = bytes[offset + 14]!, b15 = bytes[offset + 15]!;
  return String.fromCharCode(
    h[b0 >> 4]!, h[b0 & 15]!, h[b1 >> 4]!, h[b1 & 15]!, h[b2 >> 4]!, h[b2 & 15]!, h[b3 >> 4]!, h[b3 & 15]!, DASH,
    h[b4 >> 4]!, h[b4 & 15]!, h[b5 >> 4]!, h[b5 & 15]!, DASH,
    h[b6 >> 4]!, h[b6 & 15]!, h[b7 >> 4]!, h[b7 & 15]!, DASH,
    h[b8 >> 4]!, h[b8 & 15]!, h[b9 >> 4]!, h[b9 & 15]!, DASH,
    h[b10 >> 4]!, h[b10 & 15]!, h[b11 >> 4]!, h[b11 & 15]!, h[b12 >> 4]!, h[b12 & 15]!,
    h[b13 >> 4]!, h[b13 & 15]!, h[b14 >> 4]!, h[b14 & 15]!, h[b15 >> 4]!, h[b15 & 15]!,
  );
}

/** How many of the ids pushed last `EventIdColumn` remembers: a power of two. */
const RECENT_IDS = 8;

/** A 32-bit hash of four 32-bit words (murmur3's finaliser between them). */
function hashWords(a: number, b: number, c: number, d: number): number {
  let hash = Math.imul(a ^ (a >>> 16), 0x85ebca6b);
  hash = Math.imul(hash ^ b ^ (hash >>> 13), 0xc2b2ae35);
  hash = Math.imul(hash ^ c ^ (hash >>> 16), 0x85ebca6b);
  hash = Math.imul(hash ^ d ^ (hash >>> 13), 0xc2b2ae35);
  return hash ^ (hash >>> 16);
}

/** FNV-1a over the string's code units. */
function hashString(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash ^ (hash >>> 16);
}

/**
 * One stream's event ids, index `i` for revision `i + 1`, and the set that answers "is this id
 * in the stream, and where". An id in canonical UUID text (what the runtime writes) is kept as
 * its 16 bytes in chunked typed arrays (`Int32Rows`), not as a 36-character string (56 bytes) plus a `Set` entry;
 * any other id is kept as the string it is, in a sparse map. The set is an open-addressing table
 * of indexes (at most half full) hashed from those bytes or that string. `at` writes the text
 * again, equal to the id appended: the UUID form is only used for a text the bytes give back
 * exactly (36 characters, lowercase hex, dashes at 8, 13, 18 and 23).
 */
export class EventIdColumn {
  #length = 0;
  /** Each id's 16 bytes, as four words. */
  readonly #words = new Int32Rows(4);
  /** Ids not in canonical UUID text, by index. */
  readonly #others = new Map<number, string>();
  /** `index + 1` of the id hashed there, 0 for an empty slot. */
  #table = new Int32Array(32);
  /**
   * The ids pushed last and their indexes, a ring: a causation id usually names one of them (an
   * attempt's start its dispatch, an outcome its start) and is then the very same string, found
   * here without packing and hashing it.
   */
  readonly #recentIds: string[] = new Array<string>(RECENT_IDS).fill('');
  readonly #recentIndexes = new Int32Array(RECENT_IDS).fill(-1);
  /** Where a looked-up id is packed (a UUID text), so lookups allocate nothing. */
  readonly #probe = new Uint8Array(16);
  readonly #probeWords = new Int32Array(this.#probe.buffer);

  get length(): number {
    return this.#length;
  }

  /** Adds `id` as the next index; the caller has checked it is not in the column already. */
  push(id: string): void {
    const index = this.#length;
    this.#words.reserve(index);
    if (!packUuid(id, this.#words.byteChunk(index), this.#words.offset(index) * 4)) this.#others.set(index, id);
    this.#recentIds[index & (RECENT_IDS - 1)] = id;
    this.#recentIndexes[index & (RECENT_IDS - 1)] = index;
    this.#length = index + 1;
    if (this.#length * 2 > this.#table.length) this.#rehash(this.#table.length * 2);
    else this.#insert(index);
  }

  /** The id at `index` (0 … length - 1). */
  at(index: number): string {
    if (this.#others.size !== 0) {
      const other = this.#others.get(index);
      if (other !== undefined) return other;
    }
    return unpackUuid(this.#words.byteChunk(index), this.#words.offset(index) * 4);
  }

  /** The index of `id`, or -1 when the column does not hold it. */
  indexOf(id: string): number {
    for (let slot = 0; slot < RECENT_IDS; slot++) if (this.#recentIds[slot] === id) return this.#recentIndexes[slot]!;
    return this.#find(id);
  }

  /**
   * Whether the column holds `id`, from the table alone: every id pushed is in the table, and
   * the ring of recent ids only finds a causation id (usually one of them, the very same
   * string) without packing and hashing it. A new event's id is in neither, so the ring's eight
   * string comparisons (time-ordered ids share their first dozen characters) would only be lost.
   */
  has(id: string): boolean {
    return this.#find(id) !== -1;
  }

  /** The index of `id` in the table, or -1. */
  #find(id: string): number {
    const uuid = packUuid(id, this.#probe, 0);
    const probe = this.#probeWords;
    const table = this.#table;
    const mask = table.length - 1;
    const hash = uuid ? hashWords(probe[0]!, probe[1]!, probe[2]!, probe[3]!) : hashString(id);
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const entry = table[slot]!;
      if (entry === 0) return -1;
      const index = entry - 1;
      const other = this.#others.size === 0 ? undefined : this.#others.get(index);
      if (other !== undefined) {
        if (!uuid && other === id) return index;
      } else if (uuid) {
        const words = this.#words.chunk(index);
        const at = this.#words.offset(index);
        if (words[at] === probe[0] && words[at + 1] === probe[1] && words[at + 2] === probe[2] && words[at + 3] === probe[3]) return index;
      }
    }
  }

  #hashAt(index: number): number {
    const other = this.#others.size === 0 ? undefined : this.#others.get(index);
    if (other !== undefined) return hashString(other);
    const words = this.#words.chunk(index);
    const at = this.#words.offset(index);
    return hashWords(words[at]!, words[at + 1]!, words[at + 2]!, words[at + 3]!);
  }

  #insert(index: number): void {
    const table = this.#table;
    const mask = table.length - 1;
    let slot = this.#hashAt(index) & mask;
    while (table[slot] !== 0) slot = (slot + 1) & mask;
    table[slot] = index + 1;
  }

  #rehash(size: number): void {
    this.#table = new Int32Array(size);
    for (let index = 0; index < this.#length; index++) this.#insert(index);
  }
}
