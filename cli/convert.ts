/**
 * `clustergym convert --workload FILE --out FILE [--format swf|batsim|native]`: turns an SWF trace or
 * a Batsim workload into the native JSON format (DESIGN §3), which loads back into the same jobs.
 */
import { writeFileSync } from 'node:fs';
import { loadWorkload, writeNativeWorkload } from '../src/workload/index.js';
import { defineCommand, defineFlags, oneOf, text, type Values } from './common.js';

/** The flags of `convert`. */
export const flags = defineFlags({
  workload: { value: 'FILE', schema: text(), required: 'Required (the file to convert)', help: 'the SWF trace or Batsim workload to convert' },
  out: { value: 'FILE', schema: text(), required: 'Required (the native JSON file to write)', help: 'the native JSON file to write' },
  format: { schema: oneOf(['auto', 'swf', 'batsim', 'native']), default: 'auto', help: 'the reader of --workload (auto: detected from the content)' },
  'req-time-from-runtime': { help: 'use the run time as the requested time (SWF)' },
});

/** Runs the command; returns the exit code. */
export function convert(f: Values<typeof flags>): number {
  const w = loadWorkload(f.workload, { format: f.format, swf: { reqTimeFromRuntime: f['req-time-from-runtime'] } });
  writeFileSync(f.out, `${JSON.stringify(writeNativeWorkload(w))}\n`);
  const skipped = Object.entries(w.skipped)
    .map(([k, v]) => `${v} ${k}`)
    .join(', ');
  console.log(`wrote ${w.jobs.length} jobs to ${f.out}${skipped ? ` (skipped: ${skipped})` : ''}`);
  return 0;
}

/** `clustergym convert`. */
export const command = defineCommand(flags, convert);
