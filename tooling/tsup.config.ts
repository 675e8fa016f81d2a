import { defineConfig, type Options } from 'tsup';

/** The one build config every package shares: ESM, declarations, Node 20. */
export function getTsupConfig(entry: string[] | Record<string, string> = ['src/index.ts']): Options | Options[] {
  return defineConfig({
    entry,
    format: ['esm'],
    target: 'node20',
    platform: 'node',
    dts: true,
    sourcemap: true,
    clean: true,
    splitting: true,
    treeshake: true,
  }) as Options;
}
