export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** The deepest nesting of arrays and objects a JSON value may have. */
export const MAX_JSON_DEPTH = 256;
