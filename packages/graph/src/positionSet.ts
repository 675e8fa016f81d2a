/** Bits of one prefix's turn numbers: bit `n` of the array is the position `<prefix>/<n>`. */
interface TurnBits {
  words: Uint32Array;
  count: number;
}

/** The longest turn number kept as a bit: 9 digits, so it is a small integer. */
const MAX_TURN_DIGITS = 9;
/** A prefix's bits grow only while they stay within this many bits per position they hold (plus one). */
const BITS_PER_POSITION = 32;

/**
 * A set of position strings, for `RunRecordFolder`'s "every position ever dispatched". Graph
 * types name positions freely, but the team type's are `team/<member>/<turn>`, and a `Set` of
 * every position of a long run costs a cache miss or two per lookup (about 5% of a 100k-turn
 * replay) plus a table of some megabytes. So a position ending in `/<n>` (a canonical decimal
 * integer of at most 9 digits) is kept as bit `n` of its prefix's bit array while that array
 * stays dense (at most 32 bits per position it holds, plus 64); any other position, and one
 * that would make its prefix's array sparse, is kept as its string. A position is in the set
 * when either says so, so where it was put never changes the answer.
 */
export class PositionSet {
  readonly #turns = new Map<string, TurnBits>();
  readonly #others = new Set<string>();

  has(position: string): boolean {
    const slash = turnSlash(position);
    if (slash !== -1) {
      const bits = this.#turns.get(position.slice(0, slash));
      if (bits !== undefined && hasBit(bits.words, turnOf(position, slash))) return true;
    }
    return this.#others.size > 0 && this.#others.has(position);
  }

  /** Adds `position`; false (and nothing changed) when the set already held it. */
  add(position: string): boolean {
    const slash = turnSlash(position);
    if (slash !== -1) {
      const prefix = position.slice(0, slash);
      const turn = turnOf(position, slash);
      const bits = this.#turns.get(prefix);
      if (bits !== undefined && hasBit(bits.words, turn)) return false;
      if (this.#others.size > 0 && this.#others.has(position)) return false;
      if (this.#addTurn(prefix, bits, turn)) return true;
    }
    // One hash operation, not a lookup and then an insert: adding a string the set holds changes nothing.
    const before = this.#others.size;
    this.#others.add(position);
    return this.#others.size !== before;
  }

  /** Sets bit `turn` of `prefix`'s bits (`bits`, or new ones), growing them while they stay dense; false when they would not. */
  #addTurn(prefix: string, found: TurnBits | undefined, turn: number): boolean {
    const wordsNeeded = (turn >>> 5) + 1;
    let bits = found;
    if (bits === undefined) {
      if (wordsNeeded > 1) return false;
      bits = { words: new Uint32Array(1), count: 0 };
      this.#turns.set(prefix, bits);
    }
    if (wordsNeeded > bits.words.length) {
      const length = Math.max(wordsNeeded, 2 * bits.words.length);
      if (length * 32 > BITS_PER_POSITION * (bits.count + 2)) return false;
      const words = new Uint32Array(length);
      words.set(bits.words);
      bits.words = words;
    }
    bits.words[turn >>> 5]! |= 1 << (turn & 31);
    bits.count++;
    return true;
  }
}

function hasBit(words: Uint32Array, turn: number): boolean {
  const word = turn >>> 5;
  return word < words.length && (words[word]! & (1 << (turn & 31))) !== 0;
}

/**
 * The index of the slash before `position`'s turn number, or -1 when it does not end in `/<n>`
 * with `n` a canonical decimal integer (no sign, no leading zero) of at most 9 digits.
 */
function turnSlash(position: string): number {
  const slash = position.lastIndexOf('/');
  const digits = position.length - slash - 1;
  if (slash === -1 || digits === 0 || digits > MAX_TURN_DIGITS) return -1;
  if (digits > 1 && position.charCodeAt(slash + 1) === 48) return -1;
  for (let index = slash + 1; index < position.length; index++) {
    const code = position.charCodeAt(index);
    if (code < 48 || code > 57) return -1;
  }
  return slash;
}

/** The turn number after `slash` (which `turnSlash` found). */
function turnOf(position: string, slash: number): number {
  let turn = 0;
  for (let index = slash + 1; index < position.length; index++) turn = turn * 10 + position.charCodeAt(index) - 48;
  return turn;
}
