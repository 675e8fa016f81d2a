import type { Json } from '@roundtable/core';

/** What `run` and `resume` return; it is always derived from the record. */
export type GraphRunResult =
  | { readonly kind: 'complete'; readonly output: Json }
  | { readonly kind: 'fail'; readonly code: string; readonly message: string }
  /** `position` and `request` come from the first paused attempt in node declaration order. */
  | { readonly kind: 'pause'; readonly reason: string; readonly position: string | null; readonly request: Json }
  /** Attempts are unfinished, left by a process that stopped: `resume` each position. */
  | { readonly kind: 'waiting'; readonly positions: readonly string[] };
