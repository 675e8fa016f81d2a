import { describe, expect, it } from 'vitest';
import { SAME_REQUEST_MS, stopOnSignal } from './stopOnSignal.js';

function handler() {
  const calls: string[] = [];
  let clock = 1000;
  const signals = stopOnSignal(
    () => calls.push('stop'),
    () => calls.push('exit'),
    () => clock,
  );
  return { calls, signals, advance: (ms: number) => (clock += ms) };
}

describe('stopOnSignal', () => {
  it('stops on the first signal and ignores its copy (the group signal, then pnpm forwarding it)', () => {
    const { calls, signals, advance } = handler();
    signals.onSignal();
    advance(SAME_REQUEST_MS);
    signals.onSignal();
    expect(calls).toEqual(['stop']);
  });

  it('exits at once on a second Ctrl-C later, while the command is still stopping', () => {
    const { calls, signals, advance } = handler();
    signals.onSignal();
    advance(SAME_REQUEST_MS + 1);
    signals.onSignal();
    expect(calls).toEqual(['stop', 'exit']);
  });

  it('changes nothing once the command finished: its exit code stands', () => {
    const { calls, signals, advance } = handler();
    signals.onSignal();
    signals.finish();
    advance(SAME_REQUEST_MS * 10);
    signals.onSignal();
    expect(calls).toEqual(['stop']);
  });
});
