import { MAX_JSON_DEPTH } from './json.js';
import { JsonValueError } from './jsonValueError.js';
import { isWellFormedString } from './isWellFormedString.js';
import { jsonPointer } from './jsonPointer.js';
import { privateSlot } from './privateSlot.js';
import { utf8ByteLength } from './utf8.js';

/**
 * Deep-frozen objects and arrays already known to be JSON, stamped with a number in a private
 * slot (core's `privateSlot`: invisible to every reflection API, `JSON.stringify` and structural
 * equality; much cheaper to add and to read than a WeakMap entry). The number (see `markOf`)
 * holds the height (levels of nesting, 1 for an object holding only primitives), which keeps the
 * nesting limit exact when a value is reused deeper; whether every object in it lists its keys in
 * canonical (code-unit) order, so that `JSON.stringify` of it is its canonical text; and, once a
 * walk measured it, the UTF-8 bytes of its canonical text. A deep-frozen value can never stop
 * being JSON, so the walker checks each one once: later walks take its height and bytes from
 * here, and a walk writing text writes `JSON.stringify` of an ordered one.
 */
const verified = privateSlot<number>();

/** Marks below this hold the height and order; the bytes (plus one, 0: not measured) are counted in units of it. */
const MARK_BYTES_UNIT = 1024;
/** Bytes above this are not kept in a mark (the mark must stay an exact integer); such a value is measured again. */
const MAX_MARKED_BYTES = 2 ** 40;

/** A mark: `height * 2 + ordered` (at most 2 * MAX_JSON_DEPTH + 1 < 1024), and the bytes when known (-1: not measured). */
function markOf(height: number, ordered: boolean, bytes: number): number {
  const kept = bytes >= 0 && bytes <= MAX_MARKED_BYTES ? bytes + 1 : 0;
  return kept * MARK_BYTES_UNIT + height * 2 + (ordered ? 1 : 0);
}

const markHeight = (mark: number): number => (mark % MARK_BYTES_UNIT) >> 1;
const markOrdered = (mark: number): boolean => mark % 2 === 1;
/** The bytes a mark holds, or -1 when the value was not measured. */
const markBytes = (mark: number): number => Math.floor(mark / MARK_BYTES_UNIT) - 1;

/** Where a value frozen by someone else is remembered if this engine refuses private fields on frozen objects. */
const verifiedElsewhere = new WeakMap<object, number>();
let elsewhere = false;

function remember(target: object, mark: number): void {
  try {
    verified.add(target, mark);
  } catch {
    elsewhere = true;
    verifiedElsewhere.set(target, mark);
  }
}

function recall(target: object): number | undefined {
  const mark = verified.get(target);
  return mark === undefined && elsewhere ? verifiedElsewhere.get(target) : mark;
}

/** Replaces the mark of a value remembered before (to add the bytes a later walk measured). */
function rememberAgain(target: object, mark: number): void {
  if (!verified.set(target, mark)) verifiedElsewhere.set(target, mark);
}

/**
 * The canonical text of the most recently frozen values (`freezeJson`): the result an attempt
 * froze is written by the storage moments later, and this saves writing it again. Bounded, so it
 * never holds more than a few values alive. A ring of two fixed arrays, not a Map: a Map that
 * evicts its oldest entry rehashes into a new table every few dozen entries and links the old
 * table to the new one, and those dead tables, once in the old generation, keep every value
 * and text that passed through them alive across young-generation collections, so all of them
 * were promoted before dying (about 36 MiB over a 100,000-turn team run, measured). Overwriting
 * a slot of a fixed array lets the value it held go.
 */
const RECENT_TEXTS = 64;
const recentValues: (object | undefined)[] = new Array<object | undefined>(RECENT_TEXTS).fill(undefined);
const recentTextsRing: string[] = new Array<string>(RECENT_TEXTS).fill('');
/** The slot the next remembered value takes. */
let recentNext = 0;

/** The canonical text of a value whose text was written recently, if it is still kept. */
export function recentText(value: object): string | undefined {
  // Newest first: the value asked for was usually written moments ago.
  for (let back = 1, slot = recentNext - 1; back <= RECENT_TEXTS; back++, slot--) {
    if (slot < 0) slot += RECENT_TEXTS;
    if (recentValues[slot] === value) return recentTextsRing[slot];
  }
  return undefined;
}

/** Keeps the canonical text of a verified value just written, for the next walk that writes it. */
export function rememberText(value: object, text: string): void {
  recentValues[recentNext] = value;
  recentTextsRing[recentNext] = text;
  recentNext = recentNext + 1 === RECENT_TEXTS ? 0 : recentNext + 1;
}

/** What one walk does besides checking, as bit flags (`CHECK_ONLY` is none of them). */
export const CHECK_ONLY = 0;
/** Write the canonical text (returned as `text`). */
export const WRITE_TEXT = 1;
/** Build a deep-frozen copy (sharing verified deep-frozen parts) and return it as `value`. */
export const COPY = 2;
/** With COPY: a canonical copy, keys inserted in code-unit order and `-0` as `0`. */
export const SORT_KEYS = 4;
/** Freeze the value itself, in place (no copy): only for a value the caller owns. */
export const FREEZE = 8;
/** Count the UTF-8 bytes of the canonical text (returned as `bytes`) without writing it. */
export const MEASURE = 32;

export interface WalkResult {
  /** Levels of nesting: 0 for a primitive, 1 for an object holding only primitives. */
  readonly height: number;
  /** The deep-frozen copy when COPY was asked, else the value itself. */
  readonly value: unknown;
  /** The canonical text when WRITE_TEXT was asked, else ''. */
  readonly text: string;
  /** Every object of `value` lists its keys in canonical order: `JSON.stringify(value)` is its canonical text. */
  readonly ordered: boolean;
  /** With MEASURE: the UTF-8 bytes of the canonical text, else 0. */
  readonly bytes: number;
}

/** True when `JSON.stringify` of a verified value writes exactly its JSON (no `toJSON` was added to the prototypes). */
export function stringifyIsPlain(): boolean {
  return !('toJSON' in Array.prototype);
}

/** Characters that `JSON.stringify` escapes in a well-formed string. */
// eslint-disable-next-line no-control-regex -- the control characters are what it finds
const NEEDS_ESCAPE = /["\\\u0000-\u001f]/;

function quote(text: string): string {
  return NEEDS_ESCAPE.test(text) ? JSON.stringify(text) : `"${text}"`;
}

/** A character that is not ASCII or that `JSON.stringify` escapes: a string without one is its length plus its quotes. */
const NOT_PLAIN_ASCII = /[^\u0020-\u0021\u0023-\u005b\u005d-\u007f]/;

/** UTF-8 bytes of `quote(text)` for a well-formed string, without writing it unless it needs escapes. */
function quotedBytes(text: string): number {
  if (!NOT_PLAIN_ASCII.test(text)) return text.length + 2;
  return NEEDS_ESCAPE.test(text) ? utf8ByteLength(JSON.stringify(text)) : utf8ByteLength(text) + 2;
}

/** The first character of an array-index-like key: such keys are listed first by JavaScript, whatever their insertion order. */
function startsWithDigit(key: string): boolean {
  const unit = key.charCodeAt(0);
  return unit >= 0x30 && unit <= 0x39;
}

/** Sorts keys in place by code unit: by insertion for the few keys most objects have (no work array, unlike `Array.prototype.sort`). */
function sortKeys(keys: string[]): void {
  if (keys.length > 16) {
    keys.sort();
    return;
  }
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i]!;
    let j = i - 1;
    while (j >= 0 && keys[j]! > key) {
      keys[j + 1] = keys[j]!;
      j--;
    }
    keys[j + 1] = key;
  }
}

function inOrder(keys: readonly string[]): boolean {
  for (let i = 1; i < keys.length; i++) if (keys[i - 1]! > keys[i]!) return false;
  return true;
}

const { getPrototypeOf, getOwnPropertyNames, getOwnPropertySymbols, getOwnPropertyDescriptor, freeze, isFrozen, defineProperty } = Object;
// eslint-disable-next-line @typescript-eslint/unbound-method -- always called with .call
const propertyIsEnumerable = Object.prototype.propertyIsEnumerable;
const { ownKeys } = Reflect;
const objectPrototype = Object.prototype;
const arrayPrototype = Array.prototype;

/**
 * The state of one walk, kept in fields rather than closures and result objects, so that a walk
 * allocates only what it must (the key list of each object, the copies it was asked for). One
 * instance is reused by successive walks; a walk started while another runs (a getter on an array
 * element may call back in) gets its own.
 */
class Walker {
  flags = 0;
  text = '';
  /** Containers open, outermost first; `depth` of them are current (later entries are stale). */
  readonly ancestors: object[] = [];
  /** The key or index taken inside each open container, for the pointer of a failure. */
  readonly tokens: (string | number)[] = [];
  /** How many slots of `ancestors` and `tokens` this walk wrote (cleared when it ends). */
  reached = 0;
  depth = 0;
  // Set by `visit` for the value it just walked: its copy, whether all of it is deep-frozen, and
  // whether all of it lists keys in canonical order.
  copied: unknown = undefined;
  frozen = true;
  ordered = true;
  /** With MEASURE: the UTF-8 bytes of the canonical text of what was walked so far. */
  bytes = 0;

  /**
   * Lets go of the containers (and keys) the walk held, by overwriting the slots it wrote: a
   * shorter `length` would be a call into the runtime on every walk.
   */
  release(): void {
    const { ancestors, tokens } = this;
    for (let i = 0; i < this.reached; i++) {
      ancestors[i] = RELEASED;
      tokens[i] = 0;
    }
    this.reached = 0;
  }

  /** Throws the error of a failure inside the `count` outermost open containers, at `extra` inside them when given. */
  fail(count: number, message: string, extra?: string | number): never {
    let path = '';
    for (let i = 0; i < count; i++) path = jsonPointer(path, this.tokens[i]!);
    if (extra !== undefined) path = jsonPointer(path, extra);
    throw new JsonValueError(path, message);
  }

  visit(current: unknown): number {
    this.copied = current;
    this.frozen = true;
    this.ordered = true;
    switch (typeof current) {
      case 'string':
        if (!isWellFormedString(current)) this.fail(this.depth, 'String contains a lone surrogate.');
        if ((this.flags & WRITE_TEXT) !== 0) this.text += quote(current);
        if ((this.flags & MEASURE) !== 0) this.bytes += quotedBytes(current);
        return 0;
      case 'number':
        if (!Number.isFinite(current)) this.fail(this.depth, `Number ${String(current)} is not finite.`);
        // String(-0) is '0', as canonical text writes it; a canonical copy holds what its text says.
        if ((this.flags & WRITE_TEXT) !== 0) this.text += String(current);
        if ((this.flags & MEASURE) !== 0) this.bytes += String(current).length;
        if (current === 0 && (this.flags & SORT_KEYS) !== 0) this.copied = 0;
        return 0;
      case 'boolean':
        if ((this.flags & WRITE_TEXT) !== 0) this.text += current ? 'true' : 'false';
        if ((this.flags & MEASURE) !== 0) this.bytes += current ? 4 : 5;
        return 0;
      case 'object':
        if (current === null) {
          if ((this.flags & WRITE_TEXT) !== 0) this.text += 'null';
          if ((this.flags & MEASURE) !== 0) this.bytes += 4;
          return 0;
        }
        return this.visitContainer(current);
      default:
        return this.fail(this.depth, `A ${typeof current} is not a JSON value.`);
    }
  }

  visitContainer(current: object): number {
    const known = recall(current);
    const measure = (this.flags & MEASURE) !== 0;
    if (known !== undefined && this.depth + markHeight(known) <= MAX_JSON_DEPTH) {
      const ordered = markOrdered(known);
      const knownBytes = markBytes(known);
      this.ordered = ordered;
      if (!measure || knownBytes >= 0) {
        if ((this.flags & WRITE_TEXT) === 0) {
          if (measure) this.bytes += knownBytes;
          return markHeight(known);
        }
        const text = recentText(current) ?? (ordered && stringifyIsPlain() ? JSON.stringify(current) : undefined);
        if (text !== undefined) {
          this.text += text;
          if (measure) this.bytes += knownBytes;
          return markHeight(known);
        }
      }
      // Walk it to write its text in canonical order, or to measure it (its verified parts are
      // not walked again where their text or bytes are at hand).
    }
    const bytesBefore = this.bytes;
    const depth = this.depth;
    if (depth >= MAX_JSON_DEPTH) this.fail(depth, `Nesting is deeper than ${MAX_JSON_DEPTH}.`);
    const ancestors = this.ancestors;
    for (let i = 0; i < depth; i++) if (ancestors[i] === current) this.fail(depth, 'Value contains a cycle.');
    ancestors[depth] = current;
    if (depth >= this.reached) this.reached = depth + 1;
    this.depth = depth + 1;
    const height = Array.isArray(current) ? this.visitArray(current) : this.visitObject(current);
    this.depth = depth;
    const bytes = measure ? this.bytes - bytesBefore : -1;
    if (known !== undefined) {
      this.copied = current;
      this.frozen = true;
      this.ordered = markOrdered(known);
      if (measure && markBytes(known) < 0) rememberAgain(current, markOf(markHeight(known), this.ordered, bytes));
      return markHeight(known);
    }
    if ((this.flags & COPY) !== 0) {
      const out = this.copied as object;
      remember(out, markOf(height, this.ordered, bytes));
      freeze(out);
      this.frozen = true;
    } else {
      const mark = markOf(height, this.ordered, bytes);
      if ((this.flags & FREEZE) !== 0 && this.frozen) {
        remember(current, mark);
        freeze(current);
      } else {
        if ((this.flags & FREEZE) !== 0) freeze(current);
        this.frozen = this.frozen && isFrozen(current);
        if (this.frozen) remember(current, mark);
      }
      this.copied = current;
    }
    return height;
  }

  /** Walks the elements; leaves `copied`, `frozen` and `ordered` for the whole array. */
  visitArray(array: unknown[]): number {
    const depth = this.depth;
    if (getPrototypeOf(array) !== arrayPrototype) this.fail(depth - 1, 'Array subclasses are not JSON.');
    const length = array.length;
    // Own keys: one per element, 'length', and any extra property (enumerable or not, symbol or not).
    const owned = ownKeys(array).length;
    if (owned !== length + 1) {
      if (getOwnPropertySymbols(array).length > 0) this.fail(depth - 1, 'Symbol keys are not JSON.');
      this.fail(depth - 1, owned < length + 1 ? 'Sparse arrays are not JSON.' : 'Arrays with extra properties are not JSON.');
    }
    const flags = this.flags;
    const text = (flags & WRITE_TEXT) !== 0;
    const out: unknown[] | null = (flags & COPY) !== 0 ? new Array<unknown>(length) : null;
    const tokens = this.tokens;
    let height = 0;
    let frozen = true;
    let ordered = true;
    if (text) this.text += '[';
    // The brackets and the commas between elements.
    if ((flags & MEASURE) !== 0) this.bytes += length === 0 ? 2 : length + 1;
    for (let i = 0; i < length; i++) {
      // Each element present and enumerable, so the names counted above hold no extra property.
      if (!propertyIsEnumerable.call(array, i)) this.fail(depth - 1, 'Sparse arrays are not JSON.', i);
      if (text && i > 0) this.text += ',';
      tokens[depth - 1] = i;
      const child = this.visit(array[i]);
      if (child > height) height = child;
      frozen &&= this.frozen;
      ordered &&= this.ordered;
      if (out !== null) out[i] = this.copied;
    }
    if (text) this.text += ']';
    this.copied = out;
    this.frozen = frozen;
    this.ordered = ordered;
    return height + 1;
  }

  /** Walks the properties; leaves `copied`, `frozen` and `ordered` for the whole object. */
  visitObject(object: object): number {
    const depth = this.depth;
    const proto: unknown = getPrototypeOf(object);
    if (proto !== objectPrototype && proto !== null) this.fail(depth - 1, 'Only plain objects are JSON (this is a class instance).');
    if (getOwnPropertySymbols(object).length > 0) this.fail(depth - 1, 'Symbol keys are not JSON.');
    const keys = Object.keys(object);
    if (getOwnPropertyNames(object).length !== keys.length) this.fail(depth - 1, 'Non-enumerable properties are not JSON.');
    const flags = this.flags;
    const text = (flags & WRITE_TEXT) !== 0;
    const sortCopy = (flags & (COPY | SORT_KEYS)) === (COPY | SORT_KEYS);
    let ordered = inOrder(keys);
    // Canonical text and a canonical copy need the keys in code-unit order: the list is ours, sorted in place only when it is not in order.
    if (!ordered && (text || sortCopy)) sortKeys(keys);
    const out: Record<string, unknown> | null = (flags & COPY) !== 0 ? {} : null;
    const tokens = this.tokens;
    let height = 0;
    let frozen = true;
    let indexLike = false;
    let childrenOrdered = true;
    const measure = (flags & MEASURE) !== 0;
    if (text) this.text += '{';
    // The braces and the commas between members (each key's quotes and colon are counted with it).
    if (measure) this.bytes += keys.length === 0 ? 2 : keys.length + 1;
    for (let index = 0; index < keys.length; index++) {
      const key = keys[index]!;
      if (!isWellFormedString(key)) this.fail(depth - 1, 'Key contains a lone surrogate.', key);
      const descriptor = getOwnPropertyDescriptor(object, key);
      if (descriptor === undefined || !('value' in descriptor)) this.fail(depth - 1, 'Accessor properties are not JSON.', key);
      if (text) this.text += index > 0 ? `,${quote(key)}:` : `${quote(key)}:`;
      if (measure) this.bytes += quotedBytes(key) + 1;
      tokens[depth - 1] = key;
      const child = this.visit(descriptor.value);
      if (child > height) height = child;
      frozen &&= this.frozen;
      childrenOrdered &&= this.ordered;
      if (out !== null) {
        // A `__proto__` key is copied as an own property, never as a prototype.
        if (key === '__proto__') defineProperty(out, key, { value: this.copied, enumerable: true, writable: true, configurable: true });
        else out[key] = this.copied;
        indexLike ||= startsWithDigit(key);
      }
    }
    if (text) this.text += '}';
    // A canonical copy was filled in code-unit order; JavaScript lists index-like keys first, so then its order is checked.
    if (sortCopy && !ordered) ordered = !indexLike || inOrder(Object.keys(out!));
    this.copied = out;
    this.frozen = frozen;
    this.ordered = ordered && childrenOrdered;
    return height + 1;
  }
}

/** What a slot of `ancestors` holds once its walk is over (no container is ever it). */
const RELEASED: object = Object.freeze({});

let idle: Walker | null = null;

/**
 * The one JSON walker: checks that `value` is JSON (JsonValueError otherwise, with a JSON
 * pointer built only when something fails), and, as `flags` ask, writes its canonical text,
 * builds a deep-frozen copy or freezes it in place, all in the same pass. `assertJson`, `isJson`,
 * `jsonHeight`, `canonicalJson`, `copyFrozenJson`, `freezeJson` and `deepFreezeJson` are each
 * one call of it, so they can never disagree: every JSON rule of the project lives here. It is
 * on every hot path (storage preflight, result checks), so deep-frozen values it verified before
 * are not walked again, and a walk allocates only the key list of each object it reads and the
 * copies it was asked for: no property list per object beyond that, no closures, no result
 * object per container, no sort of keys already in order.
 */
export function walkJson(value: unknown, flags: number): WalkResult {
  const walker = idle ?? new Walker();
  idle = null;
  walker.flags = flags;
  try {
    const height = walker.visit(value);
    return { height, value: walker.copied, text: walker.text, ordered: walker.ordered, bytes: walker.bytes };
  } finally {
    walker.text = '';
    walker.bytes = 0;
    walker.copied = undefined;
    walker.depth = 0;
    walker.release();
    idle = walker;
  }
}

/**
 * What `walkJson(object, COPY | SORT_KEYS | MEASURE)` gives for the object `{ [keys[i]]: values[i] }`,
 * without the object: the walker builds the frozen copy itself from the keys and values, read
 * once each, so there is no caller's object to reflect on (its prototype, symbols, hidden or
 * accessor properties), which is most of what checking a small object costs. Each value is
 * walked as any property value would be. The keys must be distinct strings.
 */
/**
 * Makes empty plain objects (their prototype is `Object.prototype`, so nothing tells one from a
 * `{}`) with room for more than the four fields V8 gives `{}` inside the object: a payload of
 * four fields and its mark (the `verified` slot) then fit without a separate property array (40 bytes,
 * kept with each stored payload: about 4 MiB over a 100,000-turn team run in memory, whose every
 * turn writes a four-field attempt start). V8 sizes the objects a constructor makes from the
 * first few it made (slack tracking), so they are as large as the fields walkFields gives them.
 */
function RoomyObject(): void {}
RoomyObject.prototype = Object.prototype;
const newRoomyObject = (): Record<string, unknown> => new (RoomyObject as unknown as new () => Record<string, unknown>)();

export function walkFields(keys: readonly string[], values: readonly unknown[]): WalkResult {
  const count = keys.length;
  if (values.length !== count) throw new JsonValueError('', `${count} keys were given with ${values.length} values.`);
  const names: string[] = new Array<string>(count);
  const items: unknown[] = new Array<unknown>(count);
  for (let i = 0; i < count; i++) {
    const key: unknown = keys[i];
    if (typeof key !== 'string') throw new JsonValueError('', 'A key that is not a string is not JSON.');
    if (!isWellFormedString(key)) throw new JsonValueError(jsonPointer('', key), 'Key contains a lone surrogate.');
    for (let j = 0; j < i; j++) if (names[j] === key) throw new JsonValueError(jsonPointer('', key), 'A key given twice is not JSON.');
    names[i] = key;
    items[i] = values[i];
  }
  // Keys in code-unit order, their values with them (by insertion: a payload has a few keys).
  for (let i = 1; i < count; i++) {
    const key = names[i]!;
    const item = items[i];
    let j = i - 1;
    while (j >= 0 && names[j]! > key) {
      names[j + 1] = names[j]!;
      items[j + 1] = items[j];
      j--;
    }
    names[j + 1] = key;
    items[j + 1] = item;
  }
  const walker = idle ?? new Walker();
  idle = null;
  walker.flags = COPY | SORT_KEYS | MEASURE;
  try {
    // `{}` holds four fields and the mark inside the object up to three fields.
    const out: Record<string, unknown> = count < 4 ? {} : newRoomyObject();
    walker.ancestors[0] = out;
    walker.reached = Math.max(walker.reached, 1);
    walker.depth = 1;
    let height = 0;
    let childrenOrdered = true;
    let indexLike = false;
    let bytes = count === 0 ? 2 : count + 1;
    for (let i = 0; i < count; i++) {
      const key = names[i]!;
      walker.tokens[0] = key;
      const child = walker.visit(items[i]);
      if (child > height) height = child;
      childrenOrdered &&= walker.ordered;
      bytes += quotedBytes(key) + 1;
      // A `__proto__` key is an own property, never a prototype.
      if (key === '__proto__') defineProperty(out, key, { value: walker.copied, enumerable: true, writable: true, configurable: true });
      else out[key] = walker.copied;
      indexLike ||= startsWithDigit(key);
    }
    bytes += walker.bytes;
    // JavaScript lists index-like keys first, whatever their insertion order.
    const ordered = childrenOrdered && (!indexLike || inOrder(Object.keys(out)));
    remember(out, markOf(height + 1, ordered, bytes));
    freeze(out);
    return { height: height + 1, value: out, text: '', ordered, bytes };
  } finally {
    walker.bytes = 0;
    walker.copied = undefined;
    walker.depth = 0;
    walker.release();
    idle = walker;
  }
}

/** Whether every object of the value `freezeParsed` last proved lists its keys in canonical order. */
let parsedOrdered = true;

/**
 * Deep-freezes in place, and remembers as checked, what it can prove JSON of `value`, a value
 * `JSON.parse` just made from a well-formed text with no `\uD800`–`\uDFFF` escape (the caller's
 * proof; nothing else may hold the value). Such a value is JSON by construction but for two
 * rules, which are checked here: its plain objects, dense arrays, data properties, strings
 * (each a well-formed stretch of the text or an escape of a non-surrogate), booleans and nulls
 * are, and no value is shared or cyclic; but a number may be infinite (`1e999`) and the nesting
 * may be too deep. So no prototype, symbol, descriptor, cycle or string is inspected. Returns
 * the height, or -1 when a container at `depth` or inside it is not proven JSON: that container
 * and those around it are then left unfrozen and unremembered (the parts proven before stay
 * frozen and remembered, as JSON they are), for the full walk to check and report.
 */
export function freezeParsed(value: unknown, depth: number): number {
  parsedOrdered = true;
  if (typeof value !== 'object' || value === null) return typeof value === 'number' && !Number.isFinite(value) ? -1 : 0;
  if (depth >= MAX_JSON_DEPTH) return -1;
  let height = 0;
  let ordered = true;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const child = freezeParsed(value[i], depth + 1);
      if (child < 0) return -1;
      if (child > height) height = child;
      ordered &&= parsedOrdered;
    }
  } else {
    const object = value as Record<string, unknown>;
    const keys = Object.keys(object);
    for (let index = 0; index < keys.length; index++) {
      const child = freezeParsed(object[keys[index]!], depth + 1);
      if (child < 0) return -1;
      if (child > height) height = child;
      ordered &&= parsedOrdered;
    }
    ordered &&= inOrder(keys);
  }
  remember(value, markOf(height + 1, ordered, -1));
  freeze(value);
  parsedOrdered = ordered;
  return height + 1;
}
