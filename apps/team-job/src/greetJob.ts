import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { team } from '@roundtable/team';
import type { TeamJob } from '@roundtable/team';

/** The scratch project the job works on: a greeting function and a README. */
export const PROJECT_FILES: Record<string, string> = {
  'README.md': '# greet\n\nSays hello.\n',
  'src/greet.js': "export function greet(name) {\n  return 'hi ' + name;\n}\n",
};

export const POLITE_GREETING = "export function greet(name) {\n  return `Hello, ${name}!`;\n}\n";

export const GREET_TEST = [
  "import assert from 'node:assert/strict';",
  "import { greet } from '../src/greet.js';",
  '',
  "assert.equal(greet('Ada'), 'Hello, Ada!');",
  '',
].join('\n');

/**
 * The job: a coder edits src/greet.js, a tester adds test/greet.test.js, both in their own
 * worktrees; the runtime commits and merges them; one reviewer reads the integrated diff and
 * passes it when both changes are there. Local functions stand in for model-backed agents.
 */
export function greetJob(repository: string): TeamJob {
  return team({
    task: 'Make greet() say "Hello, <name>!" and cover it with a test.',
    repository,
    agents: [
      {
        name: 'coder',
        role: 'developer',
        brief: 'Change src/greet.js so greet(name) returns `Hello, ${name}!`.',
        run: async ({ workspace }) => {
          const file = join(workspace, 'src/greet.js');
          const before = await readFile(file, 'utf8');
          if (!before.includes('export function greet')) return { status: 'fail', summary: 'src/greet.js has no greet function.' };
          await writeFile(file, POLITE_GREETING);
          return { status: 'pass', summary: 'greet(name) now returns `Hello, ${name}!`.', data: { files: ['src/greet.js'] } };
        },
      },
      {
        name: 'tester',
        role: 'tester',
        brief: 'Add test/greet.test.js asserting the new greeting.',
        run: async ({ workspace }) => {
          await mkdir(join(workspace, 'test'), { recursive: true });
          await writeFile(join(workspace, 'test/greet.test.js'), GREET_TEST);
          return { status: 'pass', summary: 'Added test/greet.test.js.', data: { files: ['test/greet.test.js'] } };
        },
      },
    ],
    review: {
      kind: 'panel',
      reviewers: [
        {
          name: 'lead',
          run: ({ diff, agents }) => {
            const ok = diff.includes('+  return `Hello, ${name}!`;') && diff.includes('+++ b/test/greet.test.js');
            return { status: ok ? 'pass' : 'fail', summary: ok ? `Both changes are in (${agents.map((agent) => agent.name).join(', ')}).` : 'A change is missing.' };
          },
        },
      ],
    },
  });
}
