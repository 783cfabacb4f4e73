/**
 * SWF parsing speed (issue "Workloads and scheduling": at least 1,000,000 lines/s). Writes a
 * synthetic trace of 2,000,000 job lines (18 fields each, like the Parallel Workloads Archive's) to
 * the temporary directory, then streams it through `SwfReader` (jobs built, nothing retained) and
 * reports lines/s. The file is removed afterwards.
 */
import { closeSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { derive } from '../src/core/rng.js';
import { SwfReader } from '../src/workload/swf.js';

/** Writes `lines` synthetic SWF job lines to `file`. */
export function writeSyntheticSwf(file: string, lines: number): void {
  const rng = derive(1, 'bench-swf');
  const fd = openSync(file, 'w');
  writeSync(fd, '; Version: 2.2\n; MaxProcs: 1024\n; MaxNodes: 1024\n');
  let buf: string[] = [];
  let t = 0;
  for (let i = 1; i <= lines; i++) {
    t += rng.int(120);
    const procs = 1 << rng.int(10);
    const run = 1 + rng.int(20000);
    buf.push(`${i} ${t} ${rng.int(5000)} ${run} ${procs} ${run - 1} -1 ${procs} ${run * 2} -1 1 ${rng.int(100)} ${rng.int(10)} -1 ${rng.int(4)} -1 -1 -1`);
    if (buf.length === 10000) {
      writeSync(fd, `${buf.join('\n')}\n`);
      buf = [];
    }
  }
  if (buf.length) writeSync(fd, `${buf.join('\n')}\n`);
  closeSync(fd);
}

/** Parses a synthetic 2M-line trace; returns lines/s. */
export function benchSwf(lines = 2_000_000): Record<string, unknown> {
  const file = join(tmpdir(), `clustergym-bench-${process.pid}.swf`);
  writeSyntheticSwf(file, lines);
  try {
    const bytes = statSync(file).size;
    let best = 0;
    let jobs = 0;
    for (let rep = 0; rep < 3; rep++) {
      const t0 = performance.now();
      const r = new SwfReader(file);
      jobs = 0;
      for (const _ of r) jobs++;
      const s = (performance.now() - t0) / 1000;
      best = Math.max(best, lines / s);
    }
    return { lines, megabytes: Math.round(bytes / 1e6), jobs, lines_per_s: Math.round(best), target_lines_per_s: 1_000_000 };
  } finally {
    rmSync(file, { force: true });
  }
}
