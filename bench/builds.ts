/**
 * What the bench sections that compare builds share: the CPU time of the process, and the URL of a module of
 * this build or of another build's `dist/` (`CLUSTERGYM_BENCH_BASELINE=DIR`: the sections `malleable`, `slurm` and
 * `slurm-preset` measure that build beside this one, in one process; `malleable` and `slurm-preset` interleave runs).
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** CPU time (s) of the process so far (user and system: steady on a loaded machine, where wall time is not). */
export function cpuSeconds(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

/** The URL of module `path` (relative to the repository root, e.g. `src/slurm/preset.js`) in this build (`dist` null) or in the build at `dist`. */
export function buildModule(dist: string | null, path: string): string {
  return dist === null ? new URL(`../${path}`, import.meta.url).href : pathToFileURL(join(dist, path)).href;
}
