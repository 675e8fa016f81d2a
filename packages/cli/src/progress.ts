/** Where progress goes: a stream that may be a terminal. */
export interface ProgressStream {
  readonly isTTY?: boolean;
  write(text: string): unknown;
}

/** Work shorter than this shows no bar at all (override with ROUNDTABLE_PROGRESS_AFTER_MS). */
const DEFAULT_SHOW_AFTER_MS = 500;
const REDRAW_EVERY_MS = 100;
const WIDTH = 30;

/**
 * A progress bar on stderr for long work (verify, rooms, events of a large record): drawn only
 * when stderr is a terminal and the work has taken longer than half a second, redrawn at most
 * ten times a second, and erased when done. On a pipe or a file it writes nothing.
 */
export class Progress {
  private done = 0;
  private lastDraw = 0;
  private drawn = false;
  private readonly started = Date.now();
  private readonly enabled: boolean;
  private readonly showAfterMs: number;

  constructor(
    private readonly stream: ProgressStream,
    private readonly label: string,
    private total: number,
    env: Readonly<Record<string, string | undefined>> = {},
  ) {
    this.enabled = stream.isTTY === true;
    const configured = Number(env.ROUNDTABLE_PROGRESS_AFTER_MS);
    this.showAfterMs = Number.isFinite(configured) && configured >= 0 ? configured : DEFAULT_SHOW_AFTER_MS;
  }

  /** Adds to the total (work discovered as it goes). */
  grow(by: number): void {
    this.total += by;
  }

  tick(by = 1): void {
    this.done += by;
    if (!this.enabled) return;
    const now = Date.now();
    if (now - this.started < this.showAfterMs || now - this.lastDraw < REDRAW_EVERY_MS) return;
    this.lastDraw = now;
    this.draw();
  }

  /** Erases the bar, if one was drawn. */
  finish(): void {
    if (this.drawn) this.stream.write('\r\u001b[2K');
    this.drawn = false;
  }

  private draw(): void {
    const fraction = this.total > 0 ? Math.min(1, this.done / this.total) : 0;
    const filled = Math.round(fraction * WIDTH);
    const bar = `${'#'.repeat(filled)}${'-'.repeat(WIDTH - filled)}`;
    this.stream.write(`\r\u001b[2K${this.label} [${bar}] ${Math.floor(fraction * 100)}% ${this.done}/${this.total}`);
    this.drawn = true;
  }
}
