/**
 * A one-line progress bar for long commands (DESIGN §8): drawn on stderr, and only when stdout is
 * a terminal (a redirected or piped run prints no bar, so logs and tests stay clean).
 *
 *     [##########..........]  52%  104,448/200,000 steps  episodes 388  return -12.3  bsld 12.3  4,102 steps/s
 */

/** A progress bar; `update` redraws it, `done` ends its line. */
export class ProgressBar {
  private drawn = false;
  constructor(
    /** Draw at all (default: stdout is a TTY). */
    readonly enabled: boolean = process.stdout.isTTY === true,
    private readonly width = 24,
  ) {}

  /** Redraws with `done / total` and the given fields (`label value` pairs). */
  update(done: number, total: number, fields: [string, string][]): void {
    if (!this.enabled) return;
    const f = total > 0 ? Math.min(1, done / total) : 0;
    const filled = Math.round(f * this.width);
    const bar = `[${'#'.repeat(filled)}${'.'.repeat(this.width - filled)}] ${String(Math.round(f * 100)).padStart(3)}%`;
    const text = fields.map(([k, v]) => `${k} ${v}`).join('  ');
    process.stderr.write(`\r${bar}  ${text}\x1b[K`);
    this.drawn = true;
  }

  /** Ends the bar's line (if it was drawn). */
  done(): void {
    if (this.enabled && this.drawn) process.stderr.write('\n');
    this.drawn = false;
  }
}

/** An integer with thousands separators (`104448` -> `104,448`). */
export function grouped(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}
