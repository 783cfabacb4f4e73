/**
 * `leaderboard --export DIR`: each setting's held-out episodes as files any tool replays.
 *
 * `DIR/SETTING/NNN/` (NNN the episode's index, from 000) holds `config.json`: `{ "format":
 * "clustergym-leaderboard-episode", "setting", "env_id", "env_config", "leaderboard_seed", "index",
 * "seed", "origin", "metric", "lower_is_better" }` (`env_config` with absolute paths; `seed` the
 * env's reset seed: `make(env_id, env_config).reset({ seed })` plays exactly this episode). On the
 * cluster envs also `platform.json` (the platform file, or the homogeneous platform a trace runs on)
 * and `workload.json` (the episode's exact jobs, native JSON, original submit times), so
 * `clustergym simulate --platform platform.json --workload workload.json --policy P` and
 * `clustergym compare ... --policies ...` replay the batch heuristics' runs.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_PLATFORM } from '../../src/core/paths.js';
import { homogeneousPlatformJson } from '../../src/platform/homogeneous.js';
import { writeNativeWorkload } from '../../src/workload/index.js';
import type { EnvContext } from '../../envs/context.js';
import { makeContext } from '../../envs/registry.js';
import { episodeSeeds, settingEpisodes } from './run.js';
import { isClusterSetting, type Setting } from './settings.js';

/** The format tag of an exported episode's config.json. */
export const EPISODE_FORMAT = 'clustergym-leaderboard-episode';

/** The platform JSON an episode of `context` runs on. */
export function platformJsonOf(context: EnvContext, config: Record<string, unknown>): unknown {
  const p = config.platform;
  if (typeof p === 'string') return JSON.parse(readFileSync(p, 'utf8'));
  if (p !== undefined) return p;
  if (config.workload === undefined && config.generator === undefined) return JSON.parse(readFileSync(DEFAULT_PLATFORM, 'utf8'));
  const maxProcs = context.workload?.maxProcs ?? (context.generator as { maxProcs?: number } | null)?.maxProcs;
  if (maxProcs === undefined) return JSON.parse(readFileSync(DEFAULT_PLATFORM, 'utf8'));
  return homogeneousPlatformJson(maxProcs, 1, (config.models as Record<string, unknown> | undefined) ?? {});
}

/** Writes the `n` episodes of leaderboard seed `seed` of `setting` under `dir` (see the module comment). */
export function exportSetting(setting: Setting, seed: number, n: number, dir: string): void {
  const seeds = episodeSeeds(seed, n);
  const cluster = isClusterSetting(setting);
  const context = cluster ? makeContext(setting.env.id, setting.env.config) : null;
  const eps = context ? settingEpisodes(context, seeds) : seeds.map((s) => ({ seed: s, origin: -1, jobs: [] }));
  const platform = context ? JSON.stringify(platformJsonOf(context, setting.env.config), null, 1) : null;
  eps.forEach((e, i) => {
    const d = join(dir, String(i).padStart(3, '0'));
    mkdirSync(d, { recursive: true });
    const config = {
      format: EPISODE_FORMAT,
      setting: setting.name,
      env_id: setting.env.id,
      env_config: setting.env.config,
      leaderboard_seed: seed,
      index: i,
      seed: e.seed,
      origin: e.origin,
      metric: setting.metric,
      lower_is_better: setting.lower_is_better,
    };
    writeFileSync(join(d, 'config.json'), `${JSON.stringify(config, null, 1)}\n`);
    if (context) {
      writeFileSync(join(d, 'platform.json'), `${platform}\n`);
      const w = writeNativeWorkload({ name: `${setting.name} episode ${i} (seed ${e.seed})`, jobs: e.jobs, skipped: {} });
      writeFileSync(join(d, 'workload.json'), `${JSON.stringify(w)}\n`);
    }
  });
}
