/**
 * Writes `data/gpu/throughputs-synthetic.json`: a small throughput table in the format of Gavel's
 * `simulation_throughputs.json` (src/workload/dlThroughput.ts), made of INVENTED numbers, so that tests
 * and examples run without ../shared/data (Gavel's measured table stays there and is never copied).
 *
 * Four job types on K80, P100 and V100 with different speed-ups (V100 over K80: 5x, 8x, 2x, 1.25x);
 * `RecSys` runs on one GPU only, the others on 1, 2, 4 and 8. Rates, steps/s:
 *
 *     alone, consolidated:  r(n) = r1 * n * 0.9^log2(n)
 *     alone, spread:        r(n) = r1 * n * 0.6^log2(n)   (none for Seq2Seq on K80: the reader falls back)
 *     two jobs sharing:     each runs at its own r(n) * 0.6 (same family) or * 0.7 (different families)
 *
 * and `ConvNet (batch size 128)` cannot run on 8 K80s (rate 0, and 0 shared). Run:
 * `npm run build && node dist/tools/gpu/makeThroughputFixture.js [out.json]`.
 */
import { writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { jobKey, SPREAD_SUFFIX } from '../../src/workload/dlThroughput.js';

const GPUS = ['k80', 'p100', 'v100'] as const;
/** One-GPU rates by job type and GPU type, and whether the type runs on several GPUs. */
const JOBS: { name: string; r1: Record<(typeof GPUS)[number], number>; distributed: boolean }[] = [
  { name: 'ConvNet (batch size 32)', r1: { k80: 4, p100: 10, v100: 20 }, distributed: true },
  { name: 'ConvNet (batch size 128)', r1: { k80: 1, p100: 3, v100: 8 }, distributed: true },
  { name: 'Seq2Seq (batch size 64)', r1: { k80: 5, p100: 8, v100: 10 }, distributed: true },
  { name: 'RecSys (batch size 1024)', r1: { k80: 12, p100: 14, v100: 15 }, distributed: false },
];
const SCALES = [1, 2, 4, 8];

const round = (x: number) => Math.round(x * 1e6) / 1e6;
const family = (name: string) => name.split(' ')[0];
const alone = (r1: number, n: number, eff: number) => round(r1 * n * eff ** Math.log2(n));
const cannot = (job: string, gpu: string, n: number) => job === 'ConvNet (batch size 128)' && gpu === 'k80' && n === 8;

/** The fixture table. */
export function syntheticThroughputs(): Record<string, Record<string, Record<string, number | number[]>>> {
  const out: Record<string, Record<string, Record<string, number | number[]>>> = {};
  for (const gpu of GPUS) {
    const byJob: Record<string, Record<string, number | number[]>> = {};
    for (const n of SCALES)
      for (const j of JOBS) {
        if (n > 1 && !j.distributed) continue;
        const entry: Record<string, number | number[]> = { null: cannot(j.name, gpu, n) ? 0 : alone(j.r1[gpu], n, 0.9) };
        for (const k of JOBS) {
          if (n > 1 && !k.distributed) continue;
          const f = family(j.name) === family(k.name) ? 0.6 : 0.7;
          const none = cannot(j.name, gpu, n) || cannot(k.name, gpu, n);
          entry[jobKey(k.name, n)] = none ? [0, 0] : [round(alone(j.r1[gpu], n, 0.9) * f), round(alone(k.r1[gpu], n, 0.9) * f)];
        }
        byJob[jobKey(j.name, n)] = entry;
      }
    out[gpu] = byJob;
  }
  for (const gpu of GPUS) {
    const byJob: Record<string, Record<string, number>> = {};
    for (const n of SCALES)
      for (const j of JOBS) {
        if ((n > 1 && !j.distributed) || (gpu === 'k80' && j.name.startsWith('Seq2Seq'))) continue;
        byJob[jobKey(j.name, n)] = { null: cannot(j.name, gpu, n) ? 0 : alone(j.r1[gpu], n, 0.6) };
      }
    out[`${gpu}${SPREAD_SUFFIX}`] = byJob;
  }
  return out;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
  const out = process.argv[2] ?? resolve(root, 'data/gpu/throughputs-synthetic.json');
  writeFileSync(out, `${JSON.stringify(syntheticThroughputs(), null, 1)}\n`);
  process.stdout.write(`wrote ${out}\n`);
}
