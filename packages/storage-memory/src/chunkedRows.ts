const CHUNK_BITS = 12;
/** Rows a chunk holds: a power of two. */
const CHUNK_ROWS = 1 << CHUNK_BITS;
const CHUNK_MASK = CHUNK_ROWS - 1;
/** Rows the first chunk starts with, so that a short stream stays small. */
const FIRST_ROWS = 16;

/**
 * Rows of `width` 32-bit integers, added in order, kept in chunks of 4,096 rows: a long stream
 * never copies one big array into a bigger one (each copy leaving the old one as garbage for the
 * old generation until a full collection) nor holds up to half of it unused. The first chunk
 * starts at 16 rows and grows to a full chunk, so a short stream stays small. Each chunk is also
 * readable byte by byte (`byteChunk`).
 */
export class Int32Rows {
  readonly #width: number;
  readonly #chunks: Int32Array[] = [];
  readonly #byteChunks: Uint8Array[] = [];
  #capacity = 0;

  constructor(width: number) {
    this.#width = width;
  }

  /** Makes room for row `row`, the next one after every row added so far. */
  reserve(row: number): void {
    if (row < this.#capacity) return;
    if (this.#capacity < CHUNK_ROWS) {
      // Only the first chunk is ever smaller than a full one: it grows in place of itself.
      const rows = Math.min(CHUNK_ROWS, Math.max(FIRST_ROWS, this.#capacity * 4));
      const grown = new Int32Array(rows * this.#width);
      if (this.#chunks.length !== 0) grown.set(this.#chunks[0]!);
      this.#chunks[0] = grown;
      this.#byteChunks[0] = new Uint8Array(grown.buffer);
      this.#capacity = rows;
      return;
    }
    const chunk = new Int32Array(CHUNK_ROWS * this.#width);
    this.#chunks.push(chunk);
    this.#byteChunks.push(new Uint8Array(chunk.buffer));
    this.#capacity += CHUNK_ROWS;
  }

  /** The chunk holding row `row`. */
  chunk(row: number): Int32Array {
    return this.#chunks[row >>> CHUNK_BITS]!;
  }

  /** The chunk holding row `row`, as bytes. */
  byteChunk(row: number): Uint8Array {
    return this.#byteChunks[row >>> CHUNK_BITS]!;
  }

  /** Where row `row` starts in its chunk, in 32-bit words. */
  offset(row: number): number {
    return (row & CHUNK_MASK) * this.#width;
  }
}

/**
 * Pairs of values (a timestamp and a payload, say) of rows added in order, in plain arrays of
 * 4,096 rows each (grown by `push` within the chunk): `Int32Rows` for values the garbage
 * collector must see.
 */
export class ValuePairs<A, B> {
  readonly #chunks: (A | B)[][] = [];

  /** Adds the pair of row `row`, the next one. */
  push(row: number, first: A, second: B): void {
    if ((row & CHUNK_MASK) === 0) this.#chunks.push([]);
    const chunk = this.#chunks[row >>> CHUNK_BITS]!;
    chunk.push(first, second);
  }

  /** The first value of row `row`. */
  first(row: number): A {
    return this.#chunks[row >>> CHUNK_BITS]![(row & CHUNK_MASK) * 2] as A;
  }

  /** The second value of row `row`. */
  second(row: number): B {
    return this.#chunks[row >>> CHUNK_BITS]![(row & CHUNK_MASK) * 2 + 1] as B;
  }
}
