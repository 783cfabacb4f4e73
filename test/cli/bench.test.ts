/** `clustergym bench env` end to end (the compiled CLI): `--json` and bad input. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers.js';

const CLI = resolve(ROOT, 'dist/cli/main.js');
const run = (args: string[]) => spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8' });

describe('clustergym bench env', () => {
  it('prints {env, steps, seconds, steps_per_s} with --json', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cg-bench-'));
    const cfg = join(dir, 'config.json');
    writeFileSync(cfg, JSON.stringify({ trajectory: { length: 30 }, observation: 'flat' }));
    const r = run(['bench', 'env', '--env', 'clustergym/Job-v0', '--config', cfg, '--k', '8', '--steps', '500', '--json']);
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(Object.keys(out)).toEqual(['env', 'steps', 'seconds', 'steps_per_s']);
    expect(out['env']).toBe('clustergym/Job-v0');
    expect(out['steps']).toBe(500);
    expect(out['steps_per_s']).toBeGreaterThan(0);
    const v = run(['bench', 'env', '--env', 'clustergym/JobNode-v0', '--k', '4', '--steps', '400', '--vec', '4', '--threads', '2', '--json']);
    expect(v.status, v.stderr).toBe(0);
    expect(JSON.parse(v.stdout)).toMatchObject({ env: 'clustergym/JobNode-v0', steps: 400, envs: 4, threads: 2 });
  });

  it('bad input exits 2 with an actionable message', () => {
    const a = run(['bench', 'env', '--env', 'clustergym/Nope-v0']);
    expect(a.status).toBe(2);
    expect(a.stderr).toMatch(/valid ids: clustergym\/JobNode-v0, clustergym\/Job-v0, clustergym\/PolicyPair-v0/);
    const b = run(['bench', 'env', '--env', 'clustergym/Job-v0', '--k', '0']);
    expect(b.status).toBe(2);
    expect(b.stderr).toMatch(/--k/);
    const c = run(['bench', 'nope']);
    expect(c.status).toBe(2);
    expect(c.stderr).toMatch(/expected one of env/);
  });
});
