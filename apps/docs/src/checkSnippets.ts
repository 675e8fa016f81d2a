import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import type { ReadmeBlock } from './readmeBlocks.js';

/** One compile error, placed on the README line it comes from. */
export interface SnippetProblem {
  readonly where: string;
  readonly code: string;
  readonly message: string;
}

// Strict and nodenext, as a user's project on Node 20 would be, with this repository's own
// extra strictness; the packages are read from their built `dist` declarations. The one
// module a user does not have, 'docs-test/fixtures', holds the names snippets take as given.
const FIXTURES = fileURLToPath(new URL('./readmeFixtures.ts', import.meta.url));
const OPTIONS: ts.CompilerOptions = {
  paths: { 'docs-test/fixtures': [FIXTURES] },
  target: ts.ScriptTarget.ES2022,
  lib: ['lib.es2023.d.ts'],
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  types: ['node'],
  strict: true,
  noUncheckedIndexedAccess: true,
  skipLibCheck: true,
  noEmit: true,
};

function fileName(block: ReadmeBlock): string {
  return `${block.readme.replace(/\/README\.md$/, '').replace(/[^\w-]+/g, '_')}_L${block.line}.ts`;
}

/**
 * Writes every block (after its `declare` lines, as a module) into `directory`, which must be
 * inside a package that depends on every package the blocks import, and type-checks them all
 * in one program. Returns every error with the README line it stands on.
 */
export async function checkSnippets(blocks: readonly ReadmeBlock[], directory: string): Promise<SnippetProblem[]> {
  await rm(directory, { recursive: true, force: true });
  await mkdir(directory, { recursive: true });
  const origins = new Map<string, { block: ReadmeBlock; offset: number }>();
  for (const block of blocks) {
    const path = join(directory, fileName(block));
    const prelude = block.markers.declare === '' ? '' : `${block.markers.declare}\n`;
    // The block's own lines start where the prelude ends; `export {}` makes it a module either way.
    await writeFile(path, `${prelude}${block.code}\nexport {};\n`);
    origins.set(path, { block, offset: prelude === '' ? 0 : prelude.split('\n').length - 1 });
  }
  const program = ts.createProgram([...origins.keys()], OPTIONS);
  const problems: SnippetProblem[] = [];
  for (const diagnostic of ts.getPreEmitDiagnostics(program)) {
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
    const origin = diagnostic.file === undefined ? undefined : origins.get(diagnostic.file.fileName);
    if (diagnostic.file === undefined || origin === undefined) {
      problems.push({ where: diagnostic.file === undefined ? '(program)' : relative(directory, diagnostic.file.fileName), code: `TS${diagnostic.code}`, message });
      continue;
    }
    const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
    const blockLine = line - origin.offset;
    const where = blockLine < 0 ? `${origin.block.readme}:${origin.block.line} (in its docs-test: declare lines)` : `${origin.block.readme}:${origin.block.line + blockLine}`;
    problems.push({ where, code: `TS${diagnostic.code}`, message });
  }
  return problems;
}
