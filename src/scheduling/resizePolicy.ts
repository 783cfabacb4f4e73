/**
 * Reconfiguration policies: what the resource manager answers at a reconfiguration point.
 *
 * `dmr` is the seed's Slurm resource-selection plug-in in synchronous mode (seed 002 §4.2, §4.3),
 * evaluated in this order (cur: the job's size, free: free nodes, Q: the queue in priority order,
 * S: the job's allowed sizes, model.ts):
 *
 * 1. §4.2, no outstanding job ("if a preference is requested, and there is no outstanding job in the
 *    queue, the expansion can be granted up to a specified maximum"): Q empty -> expand to the
 *    largest `s` in S with `s - cur <= free`, or no-action when there is none.
 * 2. §4.2, preferred size: `cur == pref` -> no-action ("if the desired size corresponds to the
 *    current size, the RMS will return no action"); `cur > pref` -> shrink to `pref`; `cur < pref`
 *    and `pref - cur <= free` -> expand to `pref`.
 * 3. §4.3, wide optimisation, for the cases not covered (no `pref`, or below `pref` with too few
 *    free nodes to reach it):
 *    - expand to the largest `s > cur` in S with `s - cur <= free` when no queued job fits in the
 *      free nodes ("no pending job can be executed due to insufficient available resources");
 *    - otherwise shrink when a queued job could start thanks to it: the first job `q` of Q (in
 *      priority order) that does not fit now (`size(q) > free`) and for which some `s < cur` in S
 *      gives `free + cur - s >= size(q)`; the job
 *      shrinks to the largest such `s` (the least shrink that lets `q` start), and `q` gets the
 *      highest priority ("the queued job that has triggered the shrinking event will be assigned
 *      the maximum priority");
 *    - otherwise no-action.
 *
 * Note that in the paper's workload jobs start at `max >= pref` and are brought to `pref` by rule 2,
 * so the shrinks are rule 2's and a job at `pref` is never shrunk below it for a queued job (which
 * is what §7.5's Figure 6 discussion describes: five jobs on 40 nodes, the next one needs 32, "unless
 * one of the running jobs completes its execution, the pending job will not start").
 *
 * At a queue point (src/malleable/preset.ts, Malleable-v0 only) `dmr` declines: the DMR plug-in answers only when
 * the job itself reaches a reconfiguration point (synchronous mode), where rules 2 and 3 already
 * shrink for the queue. So `dmr` with queue points is exactly `dmr` without them.
 *
 * `never` answers no-action at every point (malleable jobs then run as rigid ones at `max`, plus the
 * negligible cost of the checks).
 */
import { allowedSizes, type MalleableSpec } from '../workload/malleability.js';

/** What a policy sees at a reconfiguration point. */
export interface PointContext {
  /** Simulated time (s). */
  time: number;
  /** Free nodes now. */
  free: number;
  /** The job's current size. */
  size: number;
  /** The job's malleability. */
  spec: MalleableSpec;
  /** Sizes (nodes) the queued jobs request, in priority order (the head first). */
  queue: readonly number[];
  /**
   * `'point'` (default): the job's reconfiguration point; `'queue'`: a queue point (engine.ts), where
   * a size below `size` is a shrink request for the job's next point and `size` declines.
   */
  kind?: 'point' | 'queue';
}

/** Which rule of the policy decided (for counts and tests). */
export type DmrRule = 'no-queue-expand' | 'at-pref' | 'shrink-to-pref' | 'expand-to-pref' | 'wide-expand' | 'wide-shrink' | 'no-action';

/** A decision: the new size (= `size` for no-action) and the queue position to promote, if any. */
export interface Decision {
  size: number;
  /** Index in `PointContext.queue` of the job that gets the highest priority, or -1. */
  promote: number;
  rule: DmrRule;
}

/** A reconfiguration policy. */
export type ResizePolicy = (ctx: PointContext) => Decision;

/** The largest allowed size above `cur` that the free nodes allow, or `cur`. */
function largestExpansion(sizes: readonly number[], cur: number, free: number): number {
  let best = cur;
  for (const s of sizes) if (s > cur && s - cur <= free) best = s;
  return best;
}

/** The `dmr` policy (§4.2 then §4.3, synchronous), see the module comment. */
export const dmrPolicy: ResizePolicy = (ctx) => {
  const { size: cur, free, spec, queue } = ctx;
  if (ctx.kind === 'queue') return { size: cur, promote: -1, rule: 'no-action' };
  const sizes = allowedSizes(spec);
  if (queue.length === 0) {
    const s = largestExpansion(sizes, cur, free);
    return { size: s, promote: -1, rule: s > cur ? 'no-queue-expand' : 'no-action' };
  }
  const pref = spec.pref;
  if (pref !== null) {
    if (cur === pref) return { size: cur, promote: -1, rule: 'at-pref' };
    if (cur > pref) return { size: pref, promote: -1, rule: 'shrink-to-pref' };
    if (pref - cur <= free) return { size: pref, promote: -1, rule: 'expand-to-pref' };
  }
  if (!queue.some((q) => q <= free)) {
    const s = largestExpansion(sizes, cur, free);
    if (s > cur) return { size: s, promote: -1, rule: 'wide-expand' };
  }
  for (let i = 0; i < queue.length; i++) {
    const need = queue[i]!;
    if (need <= free) continue;
    let best = -1;
    for (const s of sizes) if (s < cur && free + cur - s >= need) best = s;
    if (best > 0) return { size: best, promote: i, rule: 'wide-shrink' };
  }
  return { size: cur, promote: -1, rule: 'no-action' };
};

/** Never resize. */
export const neverPolicy: ResizePolicy = (ctx) => ({ size: ctx.size, promote: -1, rule: 'no-action' });

/** Policies by name. */
export const RESIZE_POLICIES = { dmr: dmrPolicy, never: neverPolicy } as const;
