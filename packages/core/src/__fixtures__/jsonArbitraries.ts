// Test support for the JSON walker: generators of values that are, or are almost, JSON, and a
// reference checker written as plainly as the rules in README "What counts as JSON", to hold
// the one walker to.
import fc from 'fast-check';
import { copyFrozenJson } from '../index.js';
import type { Json } from '../index.js';

const MAX_DEPTH = 256;

export function nest(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}

export function nestAround(value: unknown, depth: number): unknown {
  let out = value;
  for (let i = 0; i < depth; i++) out = [out];
  return out;
}

const notJson = fc.constantFrom<unknown>(undefined, Number.NaN, Number.POSITIVE_INFINITY, '\ud800', () => 1, new Date(0), Symbol('s'), 1n);

/** JSON values with, sometimes, one non-JSON value somewhere inside. */
export const maybeJson = fc.tuple(fc.jsonValue({ maxDepth: 4 }), fc.option(notJson, { nil: null }), fc.array(fc.nat(), { maxLength: 4 })).map(([value, bad, path]) => {
  if (bad === null) return value;
  const place = (node: unknown, rest: number[]): unknown => {
    if (rest.length === 0 || node === null || typeof node !== 'object') return bad;
    const entries = Object.entries(node as Record<string, unknown>);
    if (entries.length === 0) return bad;
    const [key, child] = entries[rest[0]! % entries.length]!;
    return Array.isArray(node) ? node.map((item: unknown, i) => (String(i) === key ? place(child, rest.slice(1)) : item)) : { ...node, [key]: place(child, rest.slice(1)) };
  };
  return place(value, path);
});

function isWellFormed(text: string): boolean {
  // A lone surrogate is replaced by U+FFFD when encoded: a well-formed string survives the trip.
  return new TextDecoder().decode(new TextEncoder().encode(text)) === text;
}

/**
 * The reference: the height of `value` (0 for a primitive, 1 + the highest child for a container)
 * when it is JSON, or -1. No cache, no tricks: one plain recursive reading of the rules.
 */
export function referenceHeight(value: unknown, ancestors: readonly object[] = []): number {
  if (value === null || typeof value === 'boolean') return 0;
  if (typeof value === 'number') return Number.isFinite(value) ? 0 : -1;
  if (typeof value === 'string') return isWellFormed(value) ? 0 : -1;
  if (typeof value !== 'object') return -1;
  if (ancestors.includes(value) || ancestors.length >= MAX_DEPTH) return -1;
  if (Object.getOwnPropertySymbols(value).length > 0) return -1;
  const inside = [...ancestors, value];
  let children: unknown[];
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype) return -1;
    const names = Object.getOwnPropertyNames(value);
    const expected = [...Array.from({ length: value.length }, (_, i) => String(i)), 'length'];
    if (names.length !== expected.length || expected.some((name) => !Object.prototype.propertyIsEnumerable.call(value, name) && name !== 'length')) return -1;
    children = Array.from(value as unknown[]);
  } else {
    const proto: unknown = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) return -1;
    const names = Object.getOwnPropertyNames(value);
    children = [];
    for (const name of names) {
      const descriptor = Object.getOwnPropertyDescriptor(value, name)!;
      if (!descriptor.enumerable || !('value' in descriptor) || !isWellFormed(name)) return -1;
      children.push(descriptor.value);
    }
  }
  let height = 0;
  for (const child of children) {
    const childHeight = referenceHeight(child, inside);
    if (childHeight < 0) return -1;
    height = Math.max(height, childHeight);
  }
  return height + 1 + ancestors.length > MAX_DEPTH ? -1 : height + 1;
}

/** The reference canonical text of a JSON value: sorted keys (by code unit), no spaces, -0 as 0. */
export function referenceText(value: Json): string {
  if (typeof value === 'number') return Object.is(value, -0) ? '0' : JSON.stringify(value);
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(referenceText).join(',')}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${referenceText(value[key]!)}`).join(',')}}`;
}

function objectOf(entries: readonly (readonly [string, unknown])[], proto: object | null): object {
  const out = Object.create(proto) as object;
  // defineProperty: a `__proto__` key is an own property, as JSON.parse makes it.
  for (const [key, child] of entries) Object.defineProperty(out, key, { value: child, enumerable: true, writable: true, configurable: true });
  return out;
}

const key = fc.oneof({ weight: 6, arbitrary: fc.string({ maxLength: 3 }) }, { weight: 1, arbitrary: fc.constantFrom('__proto__', '\ud800', 'a/b', '~', '') });

const leaf = fc.oneof(
  { weight: 6, arbitrary: fc.jsonValue({ maxDepth: 1 }) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(-0, 'a\ud800', '\udc00b', '😀', undefined, Number.NaN, Number.NEGATIVE_INFINITY, () => 1, Symbol('s'), 1n, new Date(0), new Map()) },
);

/**
 * A container that looks like JSON but breaks one rule (or, for the last two, a JSON value in an
 * unusual form), built around a child.
 */
const oddContainer = (child: unknown) =>
  fc.constantFrom<() => unknown>(
    // eslint-disable-next-line no-sparse-arrays -- the point of the case
    () => [child, , child],
    () => Object.assign([child], { extra: 1 }),
    () => ({ a: child, [Symbol('k')]: 1 }),
    () => Object.defineProperty({ a: child }, 'b', { get: () => 1, enumerable: true }),
    () => Object.defineProperty({ a: child }, 'hidden', { value: 1, enumerable: false }),
    () => Object.assign(new (class Box {})(), { a: child }),
    () => new (class List extends Array<unknown> {})(),
    () => Object.freeze({ a: child, when: new Date(0) }),
    () => objectOf([['a', child]], null),
    () => Object.freeze([child, child]),
  ).map((make) => make());

/** Make a container reach itself: a cycle. */
function withCycle(value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  if (Array.isArray(value)) value.push(value);
  else Object.defineProperty(value, 'self', { value, enumerable: true, writable: true, configurable: true });
  return value;
}

/** A frozen copy made by the walker itself, so later walks meet it in the cache of checked values. */
function checkedCopy(value: unknown): unknown {
  return referenceHeight(value) >= 0 ? copyFrozenJson(value as Json) : value;
}

/**
 * Values that are JSON or nearly: every rule broken somewhere, shared references, cycles,
 * `__proto__` and prototype-less objects, and parts frozen and checked by the walker before.
 */
export const almostJson: fc.Arbitrary<unknown> = fc.letrec<{ node: unknown }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.array(tie('node'), { maxLength: 4 }),
    fc.array(fc.tuple(key, tie('node')), { maxLength: 4 }).map((entries) => objectOf(entries, Object.prototype)),
    tie('node').chain(oddContainer),
    tie('node').map((child) => [child, { again: child }]),
    tie('node').map(checkedCopy),
    fc.array(tie('node'), { minLength: 1, maxLength: 2 }).map(withCycle),
  ),
})).node;
