import { describe, expect, it } from 'vitest';
import { diffText } from './diffCommand.js';
import type { MemberOutcome, RunDiff } from './diffCommand.js';

const completed = (summary: string): MemberOutcome => ({ position: 'team/writer/2', attempt: 1, revision: 9, status: 'completed', value: { summary } });

function diff(a: MemberOutcome[], b: MemberOutcome[]): RunDiff {
  return {
    runs: ['a', 'b'],
    heads: [10, 10],
    agreeUpTo: 5,
    differsAt: 6,
    eventsAt: [null, null],
    members: [{ memberId: 'writer', outcomes: [a, b] }],
    statuses: [{ kind: 'complete', text: 'complete' }, { kind: 'complete', text: 'complete' }],
  };
}

describe('diffText', () => {
  it('cuts each cell to where the two outcomes part when they share a long beginning, and to 60 characters', () => {
    const common = 'Final notes: Version 2.0 adds durable rooms. Review applied: ';
    const text = diffText(diff([completed(`${common}Rejected.`)], [completed(`${common}Approved, with one line more on the storage migration and the rest.`)]));
    const row = text.split('\n').find((line) => line.startsWith('writer'))!;
    expect(row).toContain('completed: …ew applied: Rejected.');
    expect(row).toContain('completed: …ew applied: Approved, with one line more on the storage mi…');
    // Short or different from the start: shown from the beginning.
    const short = diffText(diff([completed('Done: yes.')], [completed('Done: no.')]));
    expect(short).toMatch(/^writer +team\/writer\/2 #1 completed: Done: yes\. +team\/writer\/2 #1 completed: Done: no\.$/m);
    // A member with an outcome in one run only: `-` in the other.
    expect(diffText(diff([completed('x')], []))).toMatch(/completed: x +-$/m);
  });

  it('says when two runs hold the same events', () => {
    expect(diffText({ ...diff([], []), differsAt: null, heads: [7, 7] })).toBe('Runs a and b hold the same 7 events.');
  });
});
