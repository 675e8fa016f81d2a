import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkSnippets } from './checkSnippets.js';
import { readmePaths, readReadmeBlocks } from './readmeBlocks.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const output = fileURLToPath(new URL('../test-output/snippets', import.meta.url));

describe('README TypeScript blocks', () => {
  it('every ```ts block of every README compiles against the built packages (strict, nodenext)', async () => {
    const blocks = (await readReadmeBlocks(root, await readmePaths(root))).filter((block) => block.lang === 'ts' && block.markers.fragment === null);
    expect(blocks.length).toBeGreaterThan(20);
    const problems = await checkSnippets(blocks, output);
    expect(problems.map((problem) => `${problem.where}: ${problem.code}: ${problem.message}`)).toEqual([]);
  });
});
