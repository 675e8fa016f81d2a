export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/**
 * A JSON value as a caller writes it: arrays may be read-only, so an `as const` literal is one.
 * Every `Json` is a `ReadonlyJson`; functions that only read a value take this type.
 */
export type ReadonlyJson = null | boolean | number | string | readonly ReadonlyJson[] | { readonly [key: string]: ReadonlyJson };

/** The deepest nesting of arrays and objects a JSON value may have. */
export const MAX_JSON_DEPTH = 256;
