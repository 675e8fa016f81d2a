/** Stable codes of the errors the command line raises itself. Renaming one is breaking. */
export const CliErrorCodes = {
  /** A missing or malformed argument or option. Exit code 2. */
  USAGE: 'USAGE',
  /** `--store` names no directory or file that exists (the CLI never creates a store). Exit code 2. */
  STORE_NOT_FOUND: 'STORE_NOT_FOUND',
  /** `--store` is not a form the CLI knows (`fs:`, `sqlite:`, `postgres://`, a directory, a `.sqlite`/`.db` file). Exit code 2. */
  UNSUPPORTED_STORE: 'UNSUPPORTED_STORE',
  /** A `postgres://` store, but `@roundtable/storage-postgres` is not installed. Exit code 2. */
  STORE_ADAPTER_MISSING: 'STORE_ADAPTER_MISSING',
  /** The store has no run with that id. Exit code 2. */
  RUN_NOT_FOUND: 'RUN_NOT_FOUND',
  /** The run's graph kind (or its type version) is not one the CLI can fold. */
  UNKNOWN_GRAPH_KIND: 'UNKNOWN_GRAPH_KIND',
  /** `view` could not listen on the port (in use, or not allowed). Exit code 2. */
  PORT_UNAVAILABLE: 'PORT_UNAVAILABLE',
  /** The command needs a team run (rooms, messages) and the run holds another kind. Exit code 2. */
  NOT_A_TEAM_RUN: 'NOT_A_TEAM_RUN',
  /** stdout's reader is gone (a closed pipe: `| head -1`). Never printed: the command ends quietly with exit code 0. */
  OUTPUT_CLOSED: 'OUTPUT_CLOSED',
} as const;

export type CliErrorCode = (typeof CliErrorCodes)[keyof typeof CliErrorCodes];
