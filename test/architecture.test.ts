/**
 * The house rules: dependency-cruiser accepts the tree and refuses a file that imports upward (the
 * rule is tested on a small copy of the layout, so no test writes into the sources), and the package
 * ships neither build info, tests nor benchmarks.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from './helpers.js';

const DEPCRUISE = join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');
const CONFIG = join(ROOT, '.dependency-cruiser.cjs');
const tmp = mkdtempSync(join(tmpdir(), 'cg-layers-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function cruise(cwd: string, paths: string[]): { code: number | null; out: string } {
  const r = spawnSync(process.execPath, [DEPCRUISE, '--config', CONFIG, '--no-progress', ...paths], { cwd, encoding: 'utf8' });
  return { code: r.status, out: r.stdout + r.stderr };
}

/** A small tree with the project's layout: `files` maps paths to contents. */
function tree(files: Record<string, string>): string {
  const d = mkdtempSync(join(tmp, 't-'));
  writeFileSync(join(d, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', allowJs: true } }));
  for (const [p, text] of Object.entries(files)) {
    mkdirSync(dirname(join(d, p)), { recursive: true });
    writeFileSync(join(d, p), text);
  }
  return d;
}

describe('layers (npm run lint: dependency-cruiser)', () => {
  it('the project obeys them', () => {
    const r = cruise(ROOT, ['src', 'envs', 'agents', 'bridge', 'cli', 'bench', 'tools', 'index.ts']);
    expect(r.out).toMatch(/no dependency violations found/);
    expect(r.code).toBe(0);
  });

  it('a file that imports upward fails, naming the rule', () => {
    const d = tree({
      'envs/index.ts': 'export const make = 1;\n',
      'src/core/ok.ts': 'export const x = 1;\n',
      'src/core/upward.ts': "import { make } from '../../envs/index.js';\nexport const y = make;\n",
      'src/workload/sideways.ts': "import { p } from '../platform/p.js';\nexport const z = p;\n",
      'src/platform/p.ts': 'export const p = 1;\n',
      'bench/b.ts': "import { c } from '../cli/main.js';\nexport const b = c;\n",
      'cli/main.ts': 'export const c = 1;\n',
    });
    const r = cruise(d, ['src', 'envs', 'bench', 'cli']);
    expect(r.code).not.toBe(0);
    expect(r.out).toMatch(/error core-imports-upward: src\/core\/upward\.ts → envs\/index\.ts/);
    expect(r.out).toMatch(/error simulator-imports-rl-or-transport: src\/core\/upward\.ts → envs\/index\.ts/);
    expect(r.out).toMatch(/error workload-imports-upward: src\/workload\/sideways\.ts → src\/platform\/p\.ts/);
    expect(r.out).toMatch(/error bench-imports-cli: bench\/b\.ts → cli\/main\.ts/);
  });
});

describe('packaging', () => {
  it('npm pack ships the built modules, data and docs; no build info, tests or benchmarks', () => {
    const r = spawnSync('npm', ['pack', '--dry-run', '--ignore-scripts', '--json'], { cwd: ROOT, encoding: 'utf8' });
    expect(r.status).toBe(0);
    const files = (JSON.parse(r.stdout) as { files: { path: string }[] }[])[0]!.files.map((f) => f.path);
    expect(files).toContain('dist/cli/main.js');
    expect(files).toContain('dist/index.d.ts');
    expect(files).toContain('data/platforms/hetero-20.json');
    expect(files.filter((f) => /tsbuildinfo|^dist\/(bench|tools|test)\/|^test\//.test(f))).toEqual([]);
  });
});
