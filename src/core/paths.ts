/**
 * Where the package's own files are: its root (whether running from `src/` through vitest or from
 * the compiled `dist/`), and the embedded defaults under `data/`.
 */
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Repository (package) root, whether running from `src/` through vitest or from `dist/src/`. */
export const PACKAGE_ROOT = (() => {
  let d = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    if (existsSync(resolve(d, 'package.json')) && existsSync(resolve(d, 'data'))) return d;
    d = dirname(d);
  }
  return resolve(dirname(fileURLToPath(import.meta.url)), '../..');
})();

/** The embedded default platform and workload (under `data/`). */
export const DEFAULT_PLATFORM = resolve(PACKAGE_ROOT, 'data/platforms/hetero-20.json');
export const DEFAULT_WORKLOAD = resolve(PACKAGE_ROOT, 'data/workloads/mixed-300.json');
