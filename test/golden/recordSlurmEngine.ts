/**
 * Records the Slurm engine's goldens (test/golden/slurmEngine.ts), for when it retires: runs the differential tests
 * with `CLUSTERGYM_SLURM_ENGINE_RECORD` set (each case then runs the Slurm engine beside the preset, expects the
 * same result and writes the engine's digest) and writes `schedules/slurm-engine.txt`, its header naming the commit.
 * Not a test (it needs the Slurm engine, src/slurm/engine.ts: it runs only while that exists):
 *
 *     npx vite-node test/golden/recordSlurmEngine.ts
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The differential tests of the Slurm preset against the Slurm engine. */
export const DIFFERENTIAL_TESTS = [
  'test/slurm/oneEngine.test.ts',
  'test/slurm/presetLifecycle.test.ts',
  'test/slurm/presetRun.test.ts',
  'test/slurm/presetNodes.test.ts',
  'test/slurm/presetPreemptNodes.test.ts',
  'test/slurm/presetMemory.test.ts',
  'test/slurm/presetGpuNodes.test.ts',
  'test/slurm/presetCompleting.test.ts',
  'test/slurm/willRunTies.test.ts',
  'test/envs/slurmPreset.test.ts',
  'test/slurm/experiment.test.ts',
  'test/cli/slurmReplay.test.ts',
  'test/core/grid.test.ts',
];

const ROOT = join(import.meta.dirname, '..', '..');
const RECORD = join(ROOT, 'test', 'golden', 'slurm-engine.record');
/** slurmEngine.ts's `SLURM_ENGINE_GOLDENS` (that module imports vitest, which runs only under vitest). */
const SLURM_ENGINE_GOLDENS = join(ROOT, 'test', 'golden', 'schedules', 'slurm-engine.txt');
const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();

if (git('status', '--porcelain', '--', 'src', 'test', 'envs') !== '') throw new Error('commit first: the goldens name the commit that recorded them');
const commit = git('rev-parse', 'HEAD');
rmSync(RECORD, { force: true });
execFileSync(join(ROOT, 'node_modules', '.bin', 'vitest'), ['run', '--maxWorkers=1', ...DIFFERENTIAL_TESTS], {
  cwd: ROOT,
  stdio: 'inherit',
  env: { ...process.env, CLUSTERGYM_SLURM_ENGINE_RECORD: RECORD },
});
if (!existsSync(RECORD)) throw new Error('no case recorded');
const byKey = new Map<string, string>();
for (const line of readFileSync(RECORD, 'utf8').split('\n')) {
  if (line === '') continue;
  const [key, digest, kind] = line.split(' ');
  const entry = `${key} ${digest} ${kind}`;
  const seen = byKey.get(key!);
  if (seen !== undefined && seen !== entry) throw new Error(`case ${key}: two results (${seen}; ${entry})`);
  byKey.set(key!, entry);
}
rmSync(RECORD);
const counts = new Map<string, number>();
for (const e of byKey.values()) counts.set(e.split(' ')[2]!, (counts.get(e.split(' ')[2]!) ?? 0) + 1);
const header = [
  "# The retired Slurm engine's results on the cases of the Slurm preset's differential tests (issue 42; test/golden/slurmEngine.ts).",
  `# Recorded from the Slurm engine (src/slurm/engine.ts, SlurmEngine) at commit ${commit} by test/golden/recordSlurmEngine.ts,`,
  '# which ran the differential tests there with the Slurm engine beside the preset (each case: the same result on both) and cannot',
  '# run after the Slurm engine went (the next commits). The full schedules of the Slurm engine: schedules/slurm-*.csv (test/golden/slurmCases.ts).',
  `# ${byKey.size} cases: ${[...counts].map(([k, n]) => `${n} ${k}`).join(', ')}.`,
  "# KEY (a hash of the case: its kind and input) DIGEST (SHA-256 of the Slurm engine's result, 128 bits) KIND",
];
writeFileSync(SLURM_ENGINE_GOLDENS, `${header.join('\n')}\n${[...byKey.values()].sort().join('\n')}\n`);
console.log(`${SLURM_ENGINE_GOLDENS}: ${byKey.size} cases`);
