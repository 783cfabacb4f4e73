/**
 * Accelerators of a platform (DESIGN §16): a node carries `count` GPUs of one named type, and each GPU
 * type has one memory size and one power figure (idle and busy, W per GPU) wherever it appears.
 *
 * ```json
 * { "count": 36, "id": "v", "memory_gb": 64, "processors": [{ "cores": 8, "clock_rate": 2.5, "dpflops_per_cycle": 1 }],
 *   "gpus": { "count": 4, "type": "v100", "memory_gb": 16, "idle_power": 50, "busy_power": 300 } }
 * ```
 *
 * - native JSON: a node entry's `gpus` (`count`, `type`; optional `memory_gb` per GPU, `idle_power` and
 *   `busy_power` in W per GPU, default 0);
 * - SimGrid/Batsim XML has no GPUs: a `<host>` or `<cluster>` says them in `<prop>`s, `gpus` (count),
 *   `gpu_type` (default `gpu`), `gpu_memory_gb`, `gpu_idle_power`, `gpu_busy_power` (`gpusFromProperties`);
 * - slurm.conf: `Gres=gpu:TYPE:N` on a node line (`src/slurm/gres.ts`).
 *
 * Power of a node's GPUs with `b` of its `n` busy: `b * busy_power + (n - b) * idle_power`.
 */
import { z } from 'zod';
import { InputError } from '../core/errors.js';

/** The accelerators of a node: how many, of which type, and the type's figures. */
export interface GpuDescription {
  count: number;
  type: string;
  /** Memory of one GPU, GB. */
  memory_gb?: number | undefined;
  /** Power of one idle GPU, W (default 0). */
  idle_power?: number | undefined;
  /** Power of one busy GPU, W (default 0). */
  busy_power?: number | undefined;
}

/** A GPU type's figures, compiled once per platform. */
export interface GpuTypeSpec {
  readonly name: string;
  /** GPUs of this type in the platform. */
  readonly count: number;
  /** Memory of one GPU, GB (0: not given). */
  readonly memoryGb: number;
  /** Power of one idle GPU, W. */
  readonly idlePower: number;
  /** Power of one busy GPU, W. */
  readonly busyPower: number;
}

/** Type name of GPUs given without one (an untyped `Gres=gpu:N`, a SimGrid host without `gpu_type`). */
export const UNTYPED_GPU = 'gpu';

const nonNegative = z.number().finite().nonnegative();

/** A node entry's `gpus` in native JSON (node-group platforms accept it too). */
export const GpuSchema = z
  .object({
    count: z.number().int().nonnegative(),
    type: z.string().min(1),
    memory_gb: nonNegative.optional(),
    idle_power: nonNegative.optional(),
    busy_power: nonNegative.optional(),
  })
  .strict();

/** The figures a description gives (only those present), for comparison between groups. */
const FIGURES = ['memory_gb', 'idle_power', 'busy_power'] as const;

/**
 * The GPU types of `groups` in order of first appearance (groups with no GPU, or 0, give none), with their
 * counts and figures. A type whose groups give different figures is an `InputError` naming both groups
 * (`where`: the file); a figure given by one group and not another takes the given value.
 */
export function compileGpuTypes(groups: readonly { name: string; count: number; gpus?: GpuDescription | undefined }[], where?: string): GpuTypeSpec[] {
  const order: string[] = [];
  const counts = new Map<string, number>();
  const figures = new Map<string, { from: string; values: Partial<Record<(typeof FIGURES)[number], number>> }>();
  for (const g of groups) {
    const d = g.gpus;
    if (d === undefined || d.count === 0) continue;
    if (!counts.has(d.type)) {
      order.push(d.type);
      counts.set(d.type, 0);
      figures.set(d.type, { from: g.name, values: {} });
    }
    counts.set(d.type, counts.get(d.type)! + d.count * g.count);
    const known = figures.get(d.type)!;
    for (const f of FIGURES) {
      const v = d[f];
      if (v === undefined) continue;
      const prev = known.values[f];
      if (prev !== undefined && prev !== v)
        throw new InputError(
          `GPU type ${JSON.stringify(d.type)} has ${f} ${prev} in group ${JSON.stringify(known.from)} and ${v} in group ${JSON.stringify(g.name)}; a GPU type has one ${f}`,
          where,
        );
      known.values[f] = v;
    }
  }
  return order.map((name) => {
    const v = figures.get(name)!.values;
    return { name, count: counts.get(name)!, memoryGb: v.memory_gb ?? 0, idlePower: v.idle_power ?? 0, busyPower: v.busy_power ?? 0 };
  });
}

/** Power of `total` GPUs of type `spec` of which `busy` are busy, W. */
export function gpuPower(spec: GpuTypeSpec, busy: number, total: number): number {
  return busy * spec.busyPower + (total - busy) * spec.idlePower;
}

/** The SimGrid `<prop>` ids that describe a host's GPUs. */
export const GPU_PROPS = { count: 'gpus', type: 'gpu_type', memory_gb: 'gpu_memory_gb', idle_power: 'gpu_idle_power', busy_power: 'gpu_busy_power' } as const;

/**
 * The GPUs a SimGrid host's `<prop>`s describe (`GPU_PROPS`), or undefined without a `gpus` prop. `fail`
 * reports a malformed value (the reader names the element).
 */
export function gpusFromProperties(props: Readonly<Record<string, string>>, fail: (message: string) => never): GpuDescription | undefined {
  const raw = props[GPU_PROPS.count];
  const others = (Object.keys(GPU_PROPS) as (keyof typeof GPU_PROPS)[]).filter((k) => k !== 'count' && props[GPU_PROPS[k]] !== undefined);
  if (raw === undefined) {
    if (others.length > 0) fail(`prop ${GPU_PROPS[others[0]!]} needs prop ${GPU_PROPS.count} (the number of GPUs of the host)`);
    return undefined;
  }
  const count = Number(raw);
  if (!Number.isInteger(count) || count < 0) fail(`prop ${GPU_PROPS.count}: expected a whole number of GPUs, found ${JSON.stringify(raw)}`);
  const out: GpuDescription = { count, type: props[GPU_PROPS.type] ?? UNTYPED_GPU };
  if (out.type === '') fail(`prop ${GPU_PROPS.type}: expected a GPU type name, found an empty value`);
  for (const k of ['memory_gb', 'idle_power', 'busy_power'] as const) {
    const v = props[GPU_PROPS[k]];
    if (v === undefined) continue;
    const x = Number(v);
    if (!(Number.isFinite(x) && x >= 0)) fail(`prop ${GPU_PROPS[k]}: expected a number >= 0, found ${JSON.stringify(v)}`);
    out[k] = x;
  }
  return out;
}
