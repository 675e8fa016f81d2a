/**
 * What a stream id (a run id) may be: a letter or digit, then up to 127 letters, digits, `.`,
 * `_` or `-`. Storage checks it on every append (`isStreamId`); graph reads a fork's parent id
 * with it. Written once here, where both can reach it.
 */
export const STREAM_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
