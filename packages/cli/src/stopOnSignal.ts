/**
 * One Ctrl-C often arrives twice: the terminal signals the whole foreground process group, and a
 * parent such as pnpm forwards what it got to its child as well. A signal this soon after the
 * first is that same request; a later one is a second Ctrl-C, which stops the command at once.
 */
export const SAME_REQUEST_MS = 500;

export interface StopOnSignal {
  /** The SIGINT and SIGTERM handler. */
  readonly onSignal: () => void;
  /** The command has finished: a signal from now on changes nothing (its exit code stands). */
  readonly finish: () => void;
}

/**
 * How `roundtable` answers SIGINT and SIGTERM: the first asks the command to stop (`stop`, which
 * ends a follow cleanly); a copy of it within SAME_REQUEST_MS is ignored; a later one, while the
 * command is still stopping, exits at once (`exitNow`).
 */
export function stopOnSignal(stop: () => void, exitNow: () => void, now: () => number = () => performance.now()): StopOnSignal {
  let firstAt: number | null = null;
  let finished = false;
  return {
    onSignal() {
      if (finished) return;
      if (firstAt === null) {
        firstAt = now();
        stop();
      } else if (now() - firstAt > SAME_REQUEST_MS) exitNow();
    },
    finish() {
      finished = true;
    },
  };
}
