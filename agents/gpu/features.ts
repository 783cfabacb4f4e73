/**
 * The `gpu-placements` feature map of the flat linear policy (agents/learning/flat.ts, actionFeatures.ts)
 * for `clustergym/Gpu-v0` (envs/gpu/gpuEnv.ts): one shared weight vector scores each placement
 * `(slot k, GPU type t, servers s)` from the observation alone (what a client over the bridge sees).
 * With the slot's observation `(present, GPUs / 8, age / T, GPU-seconds / 8T, remaining at its best
 * rate / T, per type one-server and several-server rate / best rate, where it ran last round)`:
 *
 * | name | value |
 * |---|---|
 * | `place` | 1 |
 * | `remaining` | 10 x its remaining time at its best rate / T |
 * | `remaining_here` | 10 x its remaining time at the rate of this placement / T (`remaining / ratio`) |
 * | `area_here` | `remaining_here` x its GPUs: the GPU-time it still needs here |
 * | `gpus` | its GPUs / 8 |
 * | `ratio` | this placement's rate / its best rate |
 * | `edge` | `ratio` minus the mean of its one-server ratios over the types where it can run (how much this type suits this job more than the others) |
 * | `kept` | 1 when it ran on this type with the same servers last round (no preemption) |
 * | `several` | 1 for a placement over several servers |
 * | `age`, `attained` | 10 x its age / T, 10 x its GPU-seconds / 8T |
 * | `rank` | k / K (arrival order) |
 * | `type_free` | the type's free GPUs in this round's plan / its GPUs |
 *
 * and 0 for the end-of-round features `end` 1, `end:waiting` (waiting jobs / K) and `end:chosen`
 * (jobs chosen this round / K); the end's place features are 0. SRTF is about `place = 10, remaining
 * = -1, ratio = 0.01`.
 */
import { InputError } from '../../src/core/errors.js';

const GPU_PLACE = [
  'place',
  'remaining',
  'remaining_here',
  'area_here',
  'gpus',
  'ratio',
  'edge',
  'kept',
  'several',
  'age',
  'attained',
  'rank',
  'type_free',
] as const;
const GPU_END = ['end', 'end:waiting', 'end:chosen'] as const;

/** The Gpu-v0 layout (slots K, GPU types G) from its action count `A = 2 K G + 1` and observation size `D = K (5 + 3G) + 3G + 4`. */
export function gpuLayout(A: number, D: number): { K: number; G: number } {
  for (let G = 1; 2 * G <= A - 1; G++) {
    if ((A - 1) % (2 * G) !== 0) continue;
    const K = (A - 1) / (2 * G);
    if (K * (5 + 3 * G) + 3 * G + 4 === D) return { K, G };
  }
  throw new InputError(
    `gpu-placements: no slot and GPU type counts give ${A} actions and ${D} observations (Gpu-v0: 2KG + 1 and K(5 + 3G) + 3G + 4)`,
    'features',
  );
}

/** The `gpu-placements` feature map for `A` actions and `D` observations (see the module comment). */
export function gpuPlacements(A: number, D: number) {
  const { K, G } = gpuLayout(A, D);
  const P = GPU_PLACE.length;
  const size = P + GPU_END.length;
  const F = 5 + 3 * G;
  const g0 = K * F;
  return {
    name: 'gpu-placements' as const,
    envId: 'clustergym/Gpu-v0',
    size,
    names: [...GPU_PLACE, ...GPU_END] as readonly string[],
    fill(x: ArrayLike<number>, mask: ArrayLike<number>, out: Float64Array): void {
      out.fill(0);
      for (let k = 0; k < K; k++) {
        const b = k * F;
        if (x[b] !== 1) continue;
        let sum = 0;
        let n = 0;
        for (let t = 0; t < G; t++)
          if (x[b + 5 + t]! > 0) {
            sum += x[b + 5 + t]!;
            n++;
          }
        const meanRatio = n > 0 ? sum / n : 0;
        const rem = 10 * x[b + 4]!;
        for (let t = 0; t < G; t++)
          for (let s = 0; s < 2; s++) {
            const a = (k * G + t) * 2 + s;
            if (mask[a] !== 1) continue;
            const ratio = x[b + 5 + s * G + t]!;
            const here = ratio > 0 ? rem / ratio : rem;
            const o = a * size;
            out[o] = 1;
            out[o + 1] = rem;
            out[o + 2] = here;
            out[o + 3] = here * x[b + 1]! * 8;
            out[o + 4] = x[b + 1]!;
            out[o + 5] = ratio;
            out[o + 6] = ratio - meanRatio;
            out[o + 7] = x[b + 5 + 2 * G + t] === (s === 0 ? 1 : 0.5) ? 1 : 0;
            out[o + 8] = s;
            out[o + 9] = 10 * x[b + 2]!;
            out[o + 10] = 10 * x[b + 3]!;
            out[o + 11] = k / K;
            out[o + 12] = x[g0 + 3 * t]!;
          }
      }
      const h = g0 + 3 * G;
      const o = (A - 1) * size + P;
      out[o] = 1;
      out[o + 1] = x[h]!;
      out[o + 2] = x[h + 2]!;
    },
  };
}
