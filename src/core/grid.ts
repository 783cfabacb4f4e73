/**
 * Points of a time grid: `origin + k x period` for whole `k` (Slurm's timers that fall on a phase: the
 * `PriorityCalcPeriod` ticks at `calcPhase`, the backfill timer on its origin).
 *
 * The next point after `t` is `origin + (floor((t - origin) / period) + 1) x period`. In floating point a
 * point computed that way can come out a hair below its true value, so that `(t - origin) / period` falls a
 * hair below its `k` (with a period of 60 s and an origin of 17.9 s, at 257.9 s it is 3.9999999999999996):
 * the floor gives `k - 1` and the "next" point is `t` again, or a point a few ulps after it, so that a timer
 * rescheduled there never moves on (the one engine and the retired Slurm engine both hung on such a phase
 * before this rule) or fires twice. `nextGridPoint` takes
 * points within 1e-9 periods before `t` as `t`'s own, the rule Slurm's pass clock uses for its timers
 * (`slurmPassClock.ts`).
 */

/** The first point of the grid `origin + k x period` after `t` (points within 1e-9 periods of `t` are `t`'s; see the module comment). */
export function nextGridPoint(t: number, period: number, origin: number): number {
  return (Math.floor((t - origin) / period + 1e-9) + 1) * period + origin;
}
