import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validateGraphCommands } from './graphCommand.js';
import { GraphCommandSchema } from './index.js';
import { mutated } from './__fixtures__/mutations.js';

const commands = [
  { kind: 'dispatch', nodeId: 'a', position: 'p', input: { x: [1] } },
  { kind: 'pause', reason: 'r' },
  { kind: 'complete', output: null },
  { kind: 'fail', code: 'X', message: 'why' },
];

describe('validateGraphCommands and GraphCommandSchema', () => {
  it('give one command the same verdict, valid or mutated (when its node is declared)', () => {
    let accepted = 0;
    fc.assert(
      fc.property(
        fc.constantFrom(...commands).chain((command) => mutated(command)).map((value) => JSON.parse(JSON.stringify(value ?? null)) as unknown),
        (command) => {
          const nodeId = typeof command === 'object' && command !== null ? (command as Record<string, unknown>)['nodeId'] : undefined;
          const valid = validateGraphCommands([command], new Set(typeof nodeId === 'string' ? [nodeId] : [])).length === 0;
          expect(GraphCommandSchema.safeParse(command).success).toBe(valid);
          if (valid) accepted++;
        },
      ),
      { numRuns: 1000 },
    );
    expect(accepted).toBeGreaterThan(100);
  });
});
