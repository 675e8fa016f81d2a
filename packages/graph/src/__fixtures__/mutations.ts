// Arbitraries for this package's schema-versus-validator property tests. Not exported from the package entry.
import fc from 'fast-check';

/** Values that break most fields: wrong types, non-identifiers, limits that are not positive safe integers. */
export const oddValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(null, 0, -1, 1.5, 2 ** 53, '', ' a', 'a', true, [], {}),
  fc.string({ maxLength: 3 }),
  fc.integer(),
);

/**
 * `value` with random parts changed: a field replaced by an odd value, dropped or doubled by an
 * unknown field, an item dropped or repeated. `keep` weighs leaving each part as it is against
 * each way of changing it (raise it for larger values), so both verdicts occur.
 */
export function mutated(value: unknown, keep = 4, depth = 0): fc.Arbitrary<unknown> {
  if (depth > 4) return fc.oneof(fc.constant(value), oddValue);
  if (Array.isArray(value)) {
    const list: readonly unknown[] = value;
    const items = list.map((item) => mutated(item, keep, depth + 1));
    return fc.oneof(
      { weight: keep, arbitrary: fc.tuple(...items) },
      { weight: 1, arbitrary: fc.tuple(...items, oddValue) },
      { weight: 1, arbitrary: fc.constant(list.slice(0, -1)) },
      { weight: 1, arbitrary: fc.constant([...list, ...list]) },
      { weight: 1, arbitrary: oddValue },
    );
  }
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value);
    if (entries.length === 0) return fc.oneof(fc.constant(value), oddValue);
    const fields = fc.tuple(...entries.map(([, item]) => mutated(item, keep, depth + 1))).map((items) => Object.fromEntries(entries.map(([key], index) => [key, items[index]])));
    const reshaped = fc.tuple(fc.constantFrom(...entries.map(([key]) => key)), fc.boolean(), oddValue).map(([key, drop, extra]) => {
      const copy: Record<string, unknown> = { ...value };
      if (drop) delete copy[key];
      else copy[`${key}Extra`] = extra;
      return copy;
    });
    return fc.oneof({ weight: keep, arbitrary: fields }, { weight: 1, arbitrary: reshaped }, { weight: 1, arbitrary: oddValue });
  }
  return fc.oneof({ weight: keep, arbitrary: fc.constant(value) }, { weight: 1, arbitrary: oddValue });
}
