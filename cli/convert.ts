/**
 * `clustergym convert --workload FILE --out FILE [--format swf|batsim|native|malleable]`: turns an SWF
 * trace, a Batsim workload or a malleable workload (docs/malleability.md; its jobs get the `malleable`
 * facet) into the native JSON format (DESIGN §3), which loads back into the same jobs.
 *
 * `clustergym convert --platform FILE --out FILE`: turns a platform (SimGrid XML, IRMaSim or native JSON)
 * into the native platform JSON (with its `network` when it has one), which loads back into the same platform.
 *
 * Task traces of the fairness preset (docs/fairness.md): `--tasks FORMAT` reads a task-level trace
 * (Google 2011/2019, Alibaba 2018, SWF, native JSON Lines) and writes the native task CSV, streamed;
 * `--sort` sorts the output by submission time in external memory (bounded RAM, `--chunk-lines`).
 * `--sort` without `--tasks` sorts any large CSV by the numeric column `--key-column` (an index, or a
 * header name with `--header`).
 */
import { writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { rmSync } from 'node:fs';
import { externalSortCsv, readTrace, TRACE_FORMATS, writeNativeCsv } from '../src/fairness/traces/index.js';
import { InputError } from '../src/core/errors.js';
import { loadPlatform, writeNativePlatform } from '../src/platform/loader.js';
import { isMalleableWorkload, malleableJobs, parseMalleableWorkload } from '../src/malleable/workload.js';
import { readJsonFile } from '../src/core/json.js';
import { detectFileKind, loadWorkload, type Workload, writeNativeWorkload } from '../src/workload/index.js';
import { defineCommand, defineFlags, int, num, oneOf, text, type Values } from './common.js';

/** The flags of `convert`. */
export const flags = defineFlags({
  workload: {
    value: 'FILE',
    schema: text(),
    help: 'the SWF trace, Batsim or malleable workload to convert (this or --platform is required)',
  },
  platform: { value: 'FILE', schema: text(), help: 'a platform to convert to native JSON: SimGrid XML, IRMaSim or native JSON' },
  out: { value: 'FILE', schema: text(), required: 'Required (the native JSON file to write)', help: 'the native JSON file to write' },
  format: {
    schema: oneOf(['auto', 'swf', 'batsim', 'native', 'malleable']),
    default: 'auto',
    help: 'the reader of --workload (auto: detected from the content)',
  },
  'req-time-from-runtime': { help: 'use the run time as the requested time (SWF)' },
  tasks: { schema: oneOf(TRACE_FORMATS), help: 'read --workload as a task trace of this format and write the native task CSV (fairness preset)' },
  sort: { help: 'sort by submission time in external memory (the task CSV, or with no --tasks the CSV --workload by --key-column)' },
  'key-column': {
    value: 'COL',
    schema: text(true),
    default: 'submit',
    help: 'sort key of --sort without --tasks: a 0-based column index, or a header name with --header',
  },
  header: { help: 'the CSV sorted by --sort has a header line (kept first)' },
  'chunk-lines': { value: 'N', schema: int({ gte: 1 }), default: 1_000_000, help: 'rows sorted in memory at a time by --sort (bounds the RAM)' },
  'cpu-scale': { value: 'X', schema: num({ gt: 0 }), default: 1, help: 'multiplies the normalised CPU sizes of --tasks traces' },
  'memory-scale': { value: 'X', schema: num({ gt: 0 }), help: 'multiplies the normalised memory sizes of --tasks traces (default 1; SWF: 1/1024^2, KB to GB)' },
});

/** The task-trace and sort modes of `convert`; returns the exit code. */
function convertTasks(f: Values<typeof flags> & { workload: string }): number {
  if (f.tasks === undefined) {
    const key = /^\d+$/.test(f['key-column']) ? Number(f['key-column']) : f['key-column'];
    const r = externalSortCsv(f.workload, f.out, { key, header: f.header || typeof key === 'string', chunkLines: f['chunk-lines'] });
    console.log(`sorted ${r.rows} rows of ${f.workload} into ${f.out} (${r.runs} runs)`);
    return 0;
  }
  const tasks = readTrace(f.workload, f.tasks, { cpuScale: f['cpu-scale'], ...(f['memory-scale'] !== undefined ? { memoryScale: f['memory-scale'] } : {}) });
  const target = f.sort ? `${f.out}.unsorted` : f.out;
  const n = writeNativeCsv(tasks, target);
  if (f.sort) {
    try {
      externalSortCsv(target, f.out, { key: 'submit', header: true, chunkLines: f['chunk-lines'] });
    } finally {
      rmSync(target, { force: true });
    }
  }
  console.log(`wrote ${n} tasks to ${f.out}${f.sort ? ' (sorted by submission time)' : ''}`);
  return 0;
}

/** The workload to convert: a malleable workload (`--format malleable`, or detected) or any `loadWorkload` reads. */
function readWorkload(file: string, format: Values<typeof flags>['format'], reqTimeFromRuntime: boolean): Workload {
  if (format === 'malleable' || (format === 'auto' && detectFileKind(file) === 'json')) {
    const data = readJsonFile(file);
    if (format === 'malleable' || isMalleableWorkload(data)) return malleableJobs(parseMalleableWorkload(data, file), basename(file));
  }
  return loadWorkload(file, { format, swf: { reqTimeFromRuntime } });
}

/** Runs the command; returns the exit code. */
export function convert(f: Values<typeof flags>): number {
  if (f.platform !== undefined) {
    if (f.workload !== undefined) throw new InputError('--platform and --workload: convert one file at a time');
    const p = loadPlatform(f.platform);
    writeFileSync(f.out, `${JSON.stringify(writeNativePlatform(p.description), null, 1)}\n`);
    console.log(`wrote platform ${p.name} (${p.nodeCount} nodes, ${p.coreCount} cores${p.description.network ? ', with its network' : ''}) to ${f.out}`);
    return 0;
  }
  if (f.workload === undefined) throw new InputError('--workload: Required (the file to convert), or --platform to convert a platform');
  if (f.tasks !== undefined || f.sort) return convertTasks(f as Values<typeof flags> & { workload: string });
  const w = readWorkload(f.workload, f.format, f['req-time-from-runtime']);
  writeFileSync(f.out, `${JSON.stringify(writeNativeWorkload(w))}\n`);
  const skipped = Object.entries(w.skipped)
    .map(([k, v]) => `${v} ${k}`)
    .join(', ');
  console.log(`wrote ${w.jobs.length} jobs to ${f.out}${skipped ? ` (skipped: ${skipped})` : ''}`);
  return 0;
}

/** `clustergym convert`. */
export const command = defineCommand(flags, convert);
