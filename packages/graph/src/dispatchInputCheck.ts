/** Says whether one dispatch input that a graph type's `decide` just built is JSON, as `isJson` of `@roundtable/core` would. */
export type DispatchInputCheck = (input: unknown) => boolean;

/**
 * The graph types of this package that judge their own dispatch inputs from their parts, more
 * cheaply than a walk of each whole input, by the functions object their `compile` returned.
 * Internal (never exported from the package), so no other graph type can skip the walk.
 */
const checks = new WeakMap<object, DispatchInputCheck>();

/** Registers `check` for the dispatch inputs of `functions`' `decide`; returns `functions`. */
export function withDispatchInputCheck<Functions extends object>(functions: Functions, check: DispatchInputCheck): Functions {
  checks.set(functions, check);
  return functions;
}

/** The check registered for `functions`, or undefined (then `compileGraph` walks each input). */
export function dispatchInputCheckOf(functions: object): DispatchInputCheck | undefined {
  return checks.get(functions);
}
