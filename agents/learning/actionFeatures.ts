/**
 * Per-action feature maps for the linear policy of the flat-observation envs (flat.ts): instead of
 * one weight row per action (`W[a] . x + b[a]`, which must learn every (task slot, host) pair of
 * Fair-v0 separately), the policy scores each action by ONE shared weight vector over features of
 * that action, `s_a = theta . phi(x, mask, a)`, and plays the valid action of highest score. The
 * features are computed from the observation and the action mask alone (what any client of the
 * env sees), so the policy plays over the bridge as well as in process.
 *
 * **`fair-pairs`** (Fair-v0, envs/fairness/fairEnv.ts). Action `a = s H + h` starts the task of
 * slot `s` (users in DRF order) on host `h`; action `S H` waits. From the observation (per host
 * `fc, fm` free cores and memory / its capacity, `cc, mc` its capacities / the largest; per slot the
 * task's cores `c` and memory `m` / the largest host's, its duration `dur` / 1000 s, its user's
 * dominant share `ds` and waiting tasks `wt` / 100; globals) a placement's features are
 *
 * | name | value |
 * |---|---|
 * | `place` | 1 |
 * | `rank` | s / S (0 for DRF's choice) |
 * | `cpu`, `mem`, `duration`, `share`, `waiting` | c, m, dur, 10 ds, wt |
 * | `align` | Tetris's alignment score: `(d . r) / (|d| |r|)` with the demand `d = (c / cc, m / mc)` and the free vector `r = (fc, fm)` of the host, as fractions of its capacity |
 * | `cpu_left`, `mem_left` | `fc - c / cc`, `fm - m / mc`: what the host keeps free after the start |
 * | `user_work` | `30 wt x dur x c`: the user's work still waiting (tasks x duration x cores; about 1 for the users with the most work in Table 5.1 at 5 %) |
 * | `task_work` | `dur x c` |
 * | `share_gap` | `10 (ds - ds_0)`: how much more the user holds than the most deprived user |
 * | `cpu_load` | the cluster's CPU load |
 * | `cpu_fill` | `(c / cc) / fc`: the share of the host's free cores the task takes |
 * | `host_mem` | `mc` |
 * | `rank_x_users`, `duration_x_users`, `user_work_x_users` | `rank`, `duration` and `user_work` times the users with waiting tasks / S (what changes as users run out of tasks at the episode's end) |
 * | `cpu_left_sq` | `cpu_left^2` |
 *
 * and 0 for the wait features; the wait's features are `wait` 1, `wait:cpu_load`, `wait:mem_load`,
 * `wait:users` (users with waiting tasks / S), `wait:waiting` (waiting tasks / 1000),
 * `wait:head_cpu` (slot 0's cores) and `wait:head_fits` (1 when slot 0's task fits some host), and
 * 0 for the placement features. DRF is `rank = -30, align = 1, wait = -0.5` (slot 0 on its
 * best-aligned host, else wait): the initial theta of the shipped fair model.
 */
import { InputError } from '../../src/core/errors.js';
import { gpuPlacements } from '../gpu/features.js';

/** The names of the feature maps (`gpu-placements`: Gpu-v0's, agents/gpu/features.ts). */
export const FEATURE_MAPS = ['fair-pairs', 'gpu-placements'] as const;
/** A feature map's name. */
export type FeatureMapName = (typeof FEATURE_MAPS)[number];

/** A feature map: `fill` writes phi(x, mask, a) for every action a into `out` (A rows of `size`). */
export interface FeatureMap {
  readonly name: FeatureMapName;
  readonly envId: string;
  /** Features per action (= parameters of the policy). */
  readonly size: number;
  /** The features' names, in order. */
  readonly names: readonly string[];
  fill(obs: ArrayLike<number>, mask: ArrayLike<number>, out: Float64Array): void;
}

const FAIR_PLACE = [
  'place',
  'rank',
  'cpu',
  'mem',
  'duration',
  'share',
  'waiting',
  'align',
  'cpu_left',
  'mem_left',
  'user_work',
  'task_work',
  'share_gap',
  'cpu_load',
  'cpu_fill',
  'host_mem',
  'rank_x_users',
  'duration_x_users',
  'user_work_x_users',
  'cpu_left_sq',
] as const;
const FAIR_WAIT = ['wait', 'wait:cpu_load', 'wait:mem_load', 'wait:users', 'wait:waiting', 'wait:head_cpu', 'wait:head_fits'] as const;

/** The Fair-v0 layout (hosts H, slots S) from its action count `A = S H + 1` and observation size `D = 4H + 6S + 4`. */
export function fairLayout(A: number, D: number): { H: number; S: number } {
  for (let H = 1; H <= A - 1; H++) {
    if ((A - 1) % H !== 0) continue;
    const S = (A - 1) / H;
    if (4 * H + 6 * S + 4 === D) return { H, S };
  }
  throw new InputError(`fair-pairs: no host and slot counts give ${A} actions and ${D} observations (Fair-v0: S H + 1 and 4H + 6S + 4)`, 'features');
}

function fairPairs(A: number, D: number): FeatureMap {
  const { H, S } = fairLayout(A, D);
  const P = FAIR_PLACE.length;
  const size = P + FAIR_WAIT.length;
  const g = 4 * H + 6 * S;
  return {
    name: 'fair-pairs',
    envId: 'clustergym/Fair-v0',
    size,
    names: [...FAIR_PLACE, ...FAIR_WAIT],
    fill(x, mask, out) {
      out.fill(0);
      const cpuLoad = x[g]!;
      const share0 = x[4 * H + 4]!;
      const users = x[g + 3]!;
      for (let s = 0; s < S; s++) {
        const b = 4 * H + 6 * s;
        if (x[b] !== 1) continue;
        const c = x[b + 1]!;
        const m = x[b + 2]!;
        const dur = x[b + 3]!;
        const ds = x[b + 4]!;
        const wt = x[b + 5]!;
        for (let h = 0; h < H; h++) {
          const a = s * H + h;
          if (mask[a] !== 1) continue;
          const fc = x[4 * h]!;
          const fm = x[4 * h + 1]!;
          const d0 = c / x[4 * h + 2]!;
          const d1 = m / x[4 * h + 3]!;
          const nd = Math.hypot(d0, d1);
          const nr = Math.hypot(fc, fm);
          const o = a * size;
          out[o] = 1;
          out[o + 1] = s / S;
          out[o + 2] = c;
          out[o + 3] = m;
          out[o + 4] = dur;
          out[o + 5] = 10 * ds;
          out[o + 6] = wt;
          out[o + 7] = nd === 0 || nr === 0 ? 0 : (d0 * fc + d1 * fm) / (nd * nr);
          out[o + 8] = fc - d0;
          out[o + 9] = fm - d1;
          out[o + 10] = 30 * wt * dur * c;
          out[o + 11] = dur * c;
          out[o + 12] = 10 * (ds - share0);
          out[o + 13] = cpuLoad;
          out[o + 14] = fc > 0 ? d0 / fc : 1;
          out[o + 15] = x[4 * h + 3]!;
          out[o + 16] = (s / S) * users;
          out[o + 17] = dur * users;
          out[o + 18] = out[o + 10]! * users;
          out[o + 19] = out[o + 8]! * out[o + 8]!;
        }
      }
      let headFits = 0;
      for (let h = 0; h < H; h++) if (mask[h] === 1) headFits = 1;
      const o = S * H * size + P;
      out[o] = 1;
      out[o + 1] = cpuLoad;
      out[o + 2] = x[g + 1]!;
      out[o + 3] = x[g + 3]!;
      out[o + 4] = x[g + 2]!;
      out[o + 5] = x[4 * H + 1]!;
      out[o + 6] = headFits;
    },
  };
}

/** The feature map `name` for an env with `A` actions and a flat observation of `D` numbers. */
export function featureMap(name: FeatureMapName, envId: string, A: number, D: number): FeatureMap {
  if (name === 'fair-pairs') {
    if (envId !== 'clustergym/Fair-v0') throw new InputError(`features "fair-pairs" are Fair-v0's; the env is ${envId}`, 'features');
    return fairPairs(A, D);
  }
  if (name === 'gpu-placements') {
    if (envId !== 'clustergym/Gpu-v0') throw new InputError(`features "gpu-placements" are Gpu-v0's; the env is ${envId}`, 'features');
    return gpuPlacements(A, D);
  }
  throw new InputError(`unknown feature map ${JSON.stringify(name)}; expected one of ${FEATURE_MAPS.join(', ')}`, 'features');
}

/** The greedy valid action of `theta` (one weight per feature) given the filled features `phi` (A x size); ties to the lowest index. */
export function featureAction(theta: ArrayLike<number>, phi: Float64Array, mask: ArrayLike<number>, A: number, size: number): number {
  let best = -Infinity;
  let arg = -1;
  for (let a = 0; a < A; a++) {
    if (mask[a] !== 1) continue;
    const o = a * size;
    let s = 0;
    for (let i = 0; i < size; i++) s += theta[i]! * phi[o + i]!;
    if (s > best) {
      best = s;
      arg = a;
    }
  }
  if (arg < 0) throw new Error('no valid action in the mask');
  return arg;
}
