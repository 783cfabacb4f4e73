/**
 * Loading a workload named on the command line.
 */
import { readJsonFile } from '../platform/loader.js';
import type { Workload } from '../workload/job.js';
import { parseNativeWorkload } from '../workload/nativeJson.js';

/** Loads a workload file for a command. */
export function loadWorkloadFile(file: string): Workload {
  return parseNativeWorkload(readJsonFile(file), file);
}
