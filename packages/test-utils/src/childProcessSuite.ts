import type { ChildProcess } from 'node:child_process';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { killAll } from './childProcessFixtures.js';
import { tempDirectory } from './tempDirectory.js';
import type { TempDirectory } from './tempDirectory.js';

export interface ChildProcessSuiteOptions<T> {
  /** Checked once, before anything (fixtures import the package's build). */
  readonly assertFreshBuild: () => void;
  /** Makes what the tests work in: a directory, a database. */
  readonly setUp: () => T | Promise<T>;
  readonly tearDown: (value: T) => unknown;
  /** A fresh value for each test (true) or one for the file. */
  readonly perTest: boolean;
}

export interface ChildProcessSuite<T> {
  /** Push every child here: after each test, those still running are killed. */
  readonly children: ChildProcess[];
  /** The current value of `setUp`. */
  readonly current: () => T;
}

/** Registers the hooks of a child-process test file (call it at the top level of the file). */
export function childProcessSuite<T>(options: ChildProcessSuiteOptions<T>): ChildProcessSuite<T> {
  const children: ChildProcess[] = [];
  let value: { readonly current: T } | undefined;
  const setUp = async () => {
    value = { current: await options.setUp() };
  };
  const tearDown = async () => {
    if (value !== undefined) await options.tearDown(value.current);
    value = undefined;
  };
  beforeAll(async () => {
    options.assertFreshBuild();
    if (!options.perTest) await setUp();
  });
  if (options.perTest) beforeEach(setUp);
  afterEach(async () => {
    killAll(children);
    if (options.perTest) await tearDown();
  });
  if (!options.perTest) afterAll(tearDown);
  return {
    children,
    current: () => {
      if (value === undefined) throw new Error('childProcessSuite: no value outside a test');
      return value.current;
    },
  };
}

/** Registers hooks that make a fresh temporary directory for the file (`beforeAll`) and remove it (`afterAll`); returns its path. */
export function tempDirectoryPerFile(prefix?: string): () => string {
  let scratch: TempDirectory | undefined;
  beforeAll(() => {
    scratch = tempDirectory(prefix);
  });
  afterAll(() => scratch?.cleanup());
  return () => {
    if (scratch === undefined) throw new Error('tempDirectoryPerFile: no directory outside the tests');
    return scratch.directory;
  };
}
