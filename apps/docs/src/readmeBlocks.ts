import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * What the HTML comments right above a fenced block tell the docs test (see "Contributing" in
 * the root README). Each is one comment `<!-- docs-test: … -->`; several may stand in a row.
 */
export interface BlockMarkers {
  /** `fragment — <reason>`: the block is not checked or run. */
  readonly fragment: string | null;
  /** `declare` and code lines up to `-->`: TypeScript put before the block when it is checked. */
  readonly declare: string;
  /** `tmp <path>`: the path, wherever it stands in the block, is replaced by a fresh temp dir. */
  readonly tmp: readonly string[];
  /** `skip <text> — <reason>`: the block's commands containing <text> are not run. */
  readonly skip: readonly { readonly text: string; readonly reason: string }[];
  /** `stop <text>`: commands containing <text> run until they print a line, then get SIGINT. */
  readonly stop: readonly string[];
  /** `in-copy — <reason>`: the block runs in a fresh copy of the repository (it changes the workspace). */
  readonly inCopy: string | null;
}

export interface ReadmeBlock {
  /** The README's path relative to the repository root. */
  readonly readme: string;
  /** The 1-based line of the block's first code line. */
  readonly line: number;
  readonly lang: string;
  readonly code: string;
  readonly markers: BlockMarkers;
}

const MARKER = /^<!--\s*docs-test:\s*([\s\S]*?)\s*-->$/;
const REASON = /^(.*?)\s+—\s+(.+)$/s;

function parseMarkers(comments: readonly string[], where: string): BlockMarkers {
  let fragment: string | null = null;
  let inCopy: string | null = null;
  const declare: string[] = [];
  const tmp: string[] = [];
  const skip: { text: string; reason: string }[] = [];
  const stop: string[] = [];
  for (const comment of comments) {
    const body = MARKER.exec(comment)?.[1];
    if (body === undefined) continue;
    const [directive = '', ...rest] = body.split(/(?<=^\S+)\s/);
    const argument = rest.join(' ').trim();
    const reasoned = REASON.exec(argument);
    if (directive === 'fragment' || directive === 'in-copy') {
      const reason = /^—\s+(.+)$/s.exec(argument)?.[1];
      if (reason === undefined) throw new Error(`${where}: "docs-test: ${directive}" needs " — <reason>"`);
      if (directive === 'fragment') fragment = reason;
      else inCopy = reason;
    } else if (directive === 'declare') {
      declare.push(argument);
    } else if (directive === 'tmp' && argument !== '') {
      tmp.push(argument);
    } else if (directive === 'skip' && reasoned !== null) {
      skip.push({ text: reasoned[1]!, reason: reasoned[2]! });
    } else if (directive === 'stop' && argument !== '') {
      stop.push(argument);
    } else {
      throw new Error(`${where}: unknown or incomplete marker "docs-test: ${body.split('\n')[0]}"`);
    }
  }
  return { fragment, declare: declare.join('\n'), tmp, skip, stop, inCopy };
}

/** Every fenced block of a Markdown text, with the docs-test markers right above it. */
export function readmeBlocks(readme: string, text: string): ReadmeBlock[] {
  const lines = text.split('\n');
  const blocks: ReadmeBlock[] = [];
  for (let index = 0; index < lines.length; index++) {
    const fence = /^(\s*)(```+)\s*([\w-]*)/.exec(lines[index]!);
    if (fence === null) continue;
    const start = index;
    const code: string[] = [];
    for (index++; index < lines.length && !lines[index]!.trimStart().startsWith(fence[2]!); index++) code.push(lines[index]!);
    // The comments right above the fence, blank lines allowed between them.
    const comments: string[] = [];
    for (let above = start - 1; above >= 0; above--) {
      const line = lines[above]!.trim();
      if (line === '') continue;
      if (!line.endsWith('-->')) break;
      let first = above;
      while (first > 0 && !lines[first]!.trim().startsWith('<!--')) first--;
      comments.unshift(lines.slice(first, above + 1).join('\n').trim());
      above = first;
    }
    blocks.push({ readme, line: start + 2, lang: fence[3] ?? '', code: code.join('\n'), markers: parseMarkers(comments, `${readme}:${start + 1}`) });
  }
  return blocks;
}

/** The READMEs the docs test reads: the root's, then each package's and app's, by path. */
export async function readmePaths(root: string): Promise<string[]> {
  const paths = ['README.md'];
  for (const folder of ['packages', 'apps']) {
    for (const name of (await readdir(join(root, folder))).sort()) {
      const path = `${folder}/${name}/README.md`;
      if (await readFile(join(root, path), 'utf8').then(() => true, () => false)) paths.push(path);
    }
  }
  return paths;
}

export async function readReadmeBlocks(root: string, paths: readonly string[]): Promise<ReadmeBlock[]> {
  const blocks: ReadmeBlock[] = [];
  for (const path of paths) blocks.push(...readmeBlocks(path, await readFile(join(root, path), 'utf8')));
  return blocks;
}
