/**
 * Per-job metrics (DESIGN §2.5), pure functions:
 *
 *     wait       = start - submit
 *     turnaround = finish - submit
 *     run        = finish - start
 *     slowdown   = turnaround / run
 *     bsld       = max(turnaround / max(run, tau), 1)      (bounded slowdown, tau = 10 s)
 */

/** Threshold of the bounded slowdown, seconds. */
export const BSLD_TAU = 10;

/** Waiting time. */
export function waitTime(submit: number, start: number): number {
  return start - submit;
}

/** Turnaround (response) time. */
export function turnaround(submit: number, finish: number): number {
  return finish - submit;
}

/** Slowdown `turnaround / run` (1 when the run time is 0). */
export function slowdown(submit: number, start: number, finish: number): number {
  const run = finish - start;
  return run > 0 ? (finish - submit) / run : 1;
}

/** Bounded slowdown `max(turnaround / max(run, tau), 1)`. */
export function boundedSlowdown(submit: number, start: number, finish: number, tau = BSLD_TAU): number {
  return Math.max((finish - submit) / Math.max(finish - start, tau), 1);
}
