/**
 * `clustergym convert --workload FILE --out FILE [--format swf|batsim|native]`: turns an SWF trace or
 * a Batsim workload into the native JSON format (DESIGN §3), which loads back into the same jobs.
 */
import { writeFileSync } from 'node:fs';
import { z } from 'zod';
import { loadWorkload, writeNativeWorkload } from '../src/workload/index.js';
import { parseFlags } from './common.js';

const FLAGS = {
  workload: { type: 'string' },
  out: { type: 'string' },
  format: { type: 'string' },
  'req-time-from-runtime': { type: 'boolean' },
} as const;

const Schema = z.object({
  workload: z.string({ required_error: 'Required (the file to convert)' }),
  out: z.string({ required_error: 'Required (the native JSON file to write)' }),
  format: z.enum(['auto', 'swf', 'batsim', 'native']).default('auto'),
  'req-time-from-runtime': z.boolean().default(false),
});

/** Runs the command; returns the exit code. */
export function convertCommand(argv: string[]): number {
  const f = parseFlags('convert', argv, FLAGS, Schema);
  const w = loadWorkload(f.workload, { format: f.format, swf: { reqTimeFromRuntime: f['req-time-from-runtime'] } });
  writeFileSync(f.out, JSON.stringify(writeNativeWorkload(w)) + '\n');
  const skipped = Object.entries(w.skipped)
    .map(([k, v]) => `${v} ${k}`)
    .join(', ');
  console.log(`wrote ${w.jobs.length} jobs to ${f.out}${skipped ? ` (skipped: ${skipped})` : ''}`);
  return 0;
}
