/**
 * A one-line progress bar for long commands (DESIGN §8): drawn on stderr, and only when stdout is
 * a terminal (a redirected or piped run prints no bar, so logs and tests stay clean).
 *
 *     [##########..........]  52%  ETA 3m12s  104,448/200,000 steps  episodes 388  return -12.3  bsld 12.3  4,102 steps/s
 *
 * The ETA extrapolates the rate since the bar's first update (or its last `restart`).
 */

/** A progress bar; `update` redraws it, `done` ends its line. */
export class ProgressBar {
  private drawn = false;
  private started: { at: number; done: number } | null = null;
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
    const now = performance.now();
    if (!this.started) this.started = { at: now, done };
    const rate = (done - this.started.done) / (now - this.started.at);
    const eta = rate > 0 && done < total ? `  ETA ${duration((total - done) / rate / 1000)}` : '';
    const text = fields.map(([k, v]) => `${k} ${v}`).join('  ');
    process.stderr.write(`\r${bar}${eta}  ${text}\x1b[K`);
    this.drawn = true;
  }

  /** Ends the bar's line (if it was drawn); the next update starts a new bar (and ETA). */
  done(): void {
    if (this.enabled && this.drawn) process.stderr.write('\n');
    this.drawn = false;
    this.started = null;
  }
}

/** A duration for humans: `42s`, `3m12s`, `1h05m`. */
export function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

/** An integer with thousands separators (`104448` -> `104,448`). */
export function grouped(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}
