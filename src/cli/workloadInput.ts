/**
 * Loading the workload named on the command line: any workload format (native/IRMaSim JSON, Batsim
 * JSON, SWF). A trace without `--platform` runs on `homogeneousPlatform` (src/platform/homogeneous.ts).
 */
import type { Workload } from '../workload/job.js';
import { loadWorkload, type LoadWorkloadOptions } from '../workload/index.js';

/** Loads a workload file for a command (format detected). */
export function loadWorkloadFile(file: string, options: LoadWorkloadOptions = {}): Workload {
  return loadWorkload(file, options);
}
