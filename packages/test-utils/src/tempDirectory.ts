import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A fresh real directory under the OS temp dir. */
export interface TempDirectory {
  readonly directory: string;
  /** Removes the directory and everything in it. */
  readonly cleanup: () => void;
}

/** Makes a fresh directory `<tmpdir>/<prefix><random>`; `cleanup()` removes it. */
export function tempDirectory(prefix = 'roundtable-test-'): TempDirectory {
  const directory = mkdtempSync(join(tmpdir(), prefix));
  return { directory, cleanup: () => rmSync(directory, { recursive: true, force: true }) };
}
