/**
 * Bench section `flat-es`: training throughput of the flat ES trainer (agents/learning/flat.ts) on the
 * shipped training configs of the system settings, `data/configs/train-{fair,cosched,slurm}.json`:
 * one generation of each (2 antithetic pairs x 2 episodes, plus the centre and the reference's
 * episodes; no validation episodes), in a temporary directory. Figures: env steps/s and episodes/s
 * of the generation, and the seconds per training episode (what one ES candidate-episode costs).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseFlatEsConfig, trainFlat } from '../agents/learning/flat.js';
import { PACKAGE_ROOT } from '../src/core/paths.js';

const SETTINGS = ['fair', 'cosched', 'slurm'] as const;

/** The section's figures. */
export function benchFlatEs(): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of SETTINGS) {
    const file = resolve(PACKAGE_ROOT, `data/configs/train-${name}.json`);
    const raw = JSON.parse(readFileSync(file, 'utf8')) as { es: Record<string, unknown> };
    raw.es = { ...raw.es, generations: 1, population: 2, episodes: 2, validation_episodes: 0 };
    const c = parseFlatEsConfig(raw, file, resolve(PACKAGE_ROOT, 'data/configs'));
    const dir = mkdtempSync(join(tmpdir(), `cg-bench-es-${name}-`));
    try {
      const r = trainFlat(c, { outDir: dir });
      out[name] = {
        features: c.features,
        episodes: r.episodes,
        steps: r.steps,
        seconds: r.seconds,
        steps_per_s: r.steps / r.seconds,
        episodes_per_s: r.episodes / r.seconds,
      };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return out;
}
