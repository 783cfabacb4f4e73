/**
 * `clustergym malleable`: runs a malleable workload (seed 002, DMR; docs/malleability.md) and prints its
 * summary; `--out DIR` writes `summary.json`, `jobs.csv` (with resize counts) and `resizes.csv`.
 *
 *     clustergym malleable [--workload FILE | --jobs N --seed N] [--policy dmr|never] [--rigid]
 *                          [--expand-cost S] [--shrink-cost S] [--out DIR] [--json]
 *
 * Without `--workload` it runs the paper's workload (`--jobs` jobs of CG, Jacobi and N-body, Poisson
 * arrivals of mean 10 s, 64 nodes, seeded by `--seed`). `--rigid` runs every job rigid at its
 * submission size (the paper's fixed workload).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { simulate } from '../src/malleable/preset.js';
import { TABLE1_COST } from '../src/malleable/model.js';
import { writeMalleableJobsCsv, writeResizesCsv } from '../src/malleable/output.js';
import { RESIZE_POLICIES } from '../src/malleable/policy.js';
import { paperWorkload, readMalleableWorkload, rigidVersion } from '../src/malleable/workload.js';
import { defineCommand, defineFlags, formatTable, int, num, oneOf, text } from './common.js';

/** The flags of `malleable`. */
export const flags = defineFlags({
  workload: { value: 'FILE', schema: text(true), help: "a malleable workload file (default: the paper's workload, --jobs and --seed)" },
  jobs: {
    value: 'N',
    schema: int({ gte: 1, lte: 10_000 }),
    default: 50,
    help: "jobs of the paper's workload (at most 10,000: the queue saturates and EASY walks it at every event)",
  },
  seed: { value: 'N', schema: int({ gte: 0 }), default: 1, help: "seed of the paper's workload" },
  policy: { schema: oneOf(['dmr', 'never'] as const), default: 'dmr' as const, help: 'reconfiguration policy' },
  rigid: { help: 'every job rigid at its submission size (max): the fixed workload' },
  'expand-cost': { value: 'S', schema: num({ gte: 0 }), default: TABLE1_COST.expand, help: 'seconds an expand costs (Table 1, synchronous average)' },
  'shrink-cost': { value: 'S', schema: num({ gte: 0 }), default: TABLE1_COST.shrink, help: 'seconds a shrink costs (Table 1, synchronous average)' },
  out: { value: 'DIR', schema: text(true), help: 'write summary.json, jobs.csv and resizes.csv there' },
  json: { help: 'print the summary as JSON on stdout instead of the table' },
});

/** `clustergym malleable`. */
export const command = defineCommand(flags, (v) => {
  let w = v.workload !== undefined ? readMalleableWorkload(v.workload) : paperWorkload({ jobs: v.jobs, seed: v.seed });
  if (v.rigid) w = rigidVersion(w);
  const r = simulate(w, RESIZE_POLICIES[v.policy], { cost: { expand: v['expand-cost'], shrink: v['shrink-cost'] } });
  const summary = {
    jobs: r.jobs.length,
    nodes: w.nodes,
    policy: v.rigid ? 'rigid' : v.policy,
    makespan: r.makespan,
    allocation: r.allocation,
    mean_wait: r.meanWait,
    mean_execution: r.meanExecution,
    mean_completion: r.meanCompletion,
    expands: r.expands,
    shrinks: r.shrinks,
    no_actions: r.noActions,
    resize_time: r.resizeTime,
    events: r.events,
  };
  if (v.out !== undefined) {
    mkdirSync(v.out, { recursive: true });
    writeFileSync(join(v.out, 'summary.json'), `${JSON.stringify(summary, null, 1)}\n`);
    writeMalleableJobsCsv(join(v.out, 'jobs.csv'), r);
    writeResizesCsv(join(v.out, 'resizes.csv'), r);
  }
  if (v.json) process.stdout.write(`${JSON.stringify(summary)}\n`);
  else
    console.log(
      formatTable(
        ['metric', 'value'],
        Object.entries(summary).map(([k, x]) => [k, typeof x === 'number' && !Number.isInteger(x) ? x.toFixed(4) : x]),
      ),
    );
  return 0;
});
