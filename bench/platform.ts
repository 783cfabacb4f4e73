/**
 * Loading a large platform (issue 42, one platform): seed 004's Raijin, 3,600 nodes x 16 cores (57,600
 * cores), from its JSON text to a compiled `Platform`, written three ways:
 * - `native_group`: a native file with one node group (`{"id": "r", "count": 3600, ...}`) and a partition;
 * - `node_group_spec`: the Slurm platform format (`data/platforms/slurm-raijin.json`);
 * - `native_node_by_node`: the same nodes as 3,600 entries of one node each (3,600 groups), for comparison.
 * Each is loaded `runs` times after a warm-up (JSON.parse included); reported: median, min and max in
 * ms, and the heap the loaded platform keeps (measured with `gc()` when Node runs with `--expose-gc`, as
 * `npm run bench` does).
 */
import { parsePlatform } from '../src/platform/loader.js';
import type { Platform } from '../src/platform/platform.js';

const NODES = 3600;
const PROCESSOR = { cores: 16, clock_rate: 2.6, dpflops_per_cycle: 8, static_power: 60, dynamic_power: 6, min_power: 0.3 };

/** The three texts of the same 57,600-core platform. */
function texts(): Record<string, string> {
  const node = { memory_gb: 32, processors: [PROCESSOR] };
  return {
    native_group: JSON.stringify({
      name: 'raijin',
      clusters: [{ id: 'raijin', nodes: [{ id: 'r', count: NODES, ...node }] }],
      partitions: [{ name: 'normal', groups: ['r'], max_time: 172800 }],
    }),
    node_group_spec: JSON.stringify({
      groups: [{ name: 'raijin', count: NODES, cores: 16 }],
      partitions: [{ name: 'normal', groups: ['raijin'], max_time: 172800 }],
    }),
    native_node_by_node: JSON.stringify({
      name: 'raijin',
      clusters: [{ id: 'raijin', nodes: Array.from({ length: NODES }, (_, k) => ({ id: `r${k}`, ...node })) }],
    }),
  };
}

const gc = (globalThis as { gc?: () => void }).gc;

/** Heap kept by the platform `make` builds, bytes (null without `--expose-gc`). */
function retainedBytes(make: () => Platform): number | null {
  if (!gc) return null;
  gc();
  const before = process.memoryUsage().heapUsed;
  const kept = make();
  gc();
  const after = process.memoryUsage().heapUsed;
  if (kept.coreCount !== NODES * 16) throw new Error('wrong platform');
  return after - before;
}

/** Loads each text `runs` times; returns the timings (ms) and the heap each platform keeps. */
export function benchPlatform(runs = 50): Record<string, unknown> {
  const out: Record<string, unknown> = { nodes: NODES, cores: NODES * 16, runs };
  for (const [name, text] of Object.entries(texts())) {
    const load = () => parsePlatform(JSON.parse(text), name);
    for (let i = 0; i < 5; i++) load();
    const ms: number[] = [];
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now();
      const p = load();
      ms.push(performance.now() - t0);
      if (p.coreCount !== NODES * 16) throw new Error(`${name}: ${p.coreCount} cores`);
    }
    ms.sort((a, b) => a - b);
    const round = (x: number) => Math.round(x * 1000) / 1000;
    const heap = retainedBytes(load);
    out[name] = {
      json_kb: Math.round(text.length / 1024),
      groups: load().groupCount,
      median_ms: round(ms[Math.floor(runs / 2)]!),
      min_ms: round(ms[0]!),
      max_ms: round(ms[runs - 1]!),
      retained_kb: heap === null ? null : Math.round(heap / 1024),
    };
  }
  return out;
}
