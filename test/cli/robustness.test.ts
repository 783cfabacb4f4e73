/**
 * The CLI robustness defects of issue 18 through the built CLI: a failed run keeps the previous
 * outputs of --out; a path of the wrong kind names its flag; an empty or header-only workload is an
 * error; an SWF without MaxProcs warns; serve refuses a port out of range and a non-loopback bind
 * (exit 2); --version; negative flag values.
 */
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../helpers.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'cg-rob-'));
const line = (id: number, sub = 0) => `${id} ${sub} 0 10 2 -1 -1 2 20 -1 1 -1 -1 -1 -1 -1 -1 -1\n`;

describe('CLI robustness', () => {
  it('a failed run leaves the previous outputs of --out as they were, and no temporary folder', () => {
    const d = tmp();
    const good = join(d, 'good.swf');
    writeFileSync(good, `; MaxProcs: 4\n${line(1)}${line(2, 1)}`);
    const out = join(d, 'out');
    expect(cli(['simulate', '--workload', good, '--out', out]).code).toBe(0);
    const before = readFileSync(join(out, 'summary.json'), 'utf8');
    const bad = join(d, 'bad.swf');
    writeFileSync(bad, `; MaxProcs: 4\n${line(1)}2 5 0 ten 3 -1 -1 3 20 -1 1 -1 -1 -1 -1 -1 -1 -1\n`);
    const r = cli(['simulate', '--workload', bad, '--out', out]);
    expect(r.code).toBe(2);
    expect(readFileSync(join(out, 'summary.json'), 'utf8')).toBe(before);
    expect(readdirSync(out).sort()).toEqual(['jobs.csv', 'summary.json']);
    expect(readdirSync(d).filter((f) => f.includes('.tmp-'))).toEqual([]);
  });

  it('a path of the wrong kind names its flag (exit 2)', () => {
    const d = tmp();
    const file = join(d, 'f.txt');
    writeFileSync(file, 'x');
    const r1 = cli(['simulate', '--out', file]);
    expect(r1.code).toBe(2);
    expect(r1.stderr).toMatch(/--out .*f\.txt: is a file, expected a folder/);
    mkdirSync(join(d, 'dir'));
    const r2 = cli(['simulate', '--workload', join(d, 'dir')]);
    expect(r2.code).toBe(2);
    expect(r2.stderr).toMatch(/--workload .*dir: is a folder, expected a file/);
    const r3 = cli(['simulate', '--out', join(file, 'sub')]);
    expect(r3.code).toBe(2);
    expect(r3.stderr).toMatch(/--out .*is a file, not a folder/);
  });

  it('an empty or header-only workload is an error, not a run of nothing', () => {
    const d = tmp();
    const header = join(d, 'h.swf');
    writeFileSync(header, '; MaxProcs: 4\n; Note: nothing\n');
    const r1 = cli(['simulate', '--workload', header]);
    expect(r1.code).toBe(2);
    expect(r1.stderr).toMatch(/--workload .*h\.swf: the workload holds no jobs/);
    const json = join(d, 'w.json');
    writeFileSync(json, JSON.stringify({ jobs: [], profiles: {} }));
    const r2 = cli(['simulate', '--workload', json]);
    expect(r2.code).toBe(2);
    expect(r2.stderr).toMatch(/holds no jobs/);
  });

  it('an SWF without MaxProcs warns that it runs on the default platform', () => {
    const d = tmp();
    const f = join(d, 'n.swf');
    writeFileSync(f, `${line(1)}${line(2, 1)}`);
    const r = cli(['simulate', '--workload', f]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/warning: .*n\.swf has no MaxProcs .*--platform/);
  });

  it('an SWF with duplicate job ids exits 2 naming the line', () => {
    const d = tmp();
    const f = join(d, 'dup.swf');
    writeFileSync(f, `; MaxProcs: 4\n${line(7)}${line(7, 1)}`);
    const r = cli(['simulate', '--workload', f]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/dup\.swf:3.*job id 7 appears twice/);
  });

  it('serve: a port out of range and a non-loopback bind exit 2 naming the problem', () => {
    const r1 = cli(['serve', '--bind', 'tcp://127.0.0.1:99999']);
    expect(r1.code).toBe(2);
    expect(r1.stderr).toMatch(/--bind.*port 99999 is out of range/);
    for (const b of ['tcp://0.0.0.0:0', 'tcp://*:0', 'tcp://192.0.2.1:5555']) {
      const r = cli(['serve', '--bind', b]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/not a loopback address.*--allow-remote/);
    }
  });

  it('--version prints the version; a negative flag value is a value', () => {
    const v = cli(['--version']);
    expect(v.code).toBe(0);
    expect(v.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    const r = cli(['simulate', '--comm-penalty', '-1']);
    expect(r.code).toBe(2);
    expect(r.stderr).not.toMatch(/ambiguous/);
    expect(r.stderr).toMatch(/--comm-penalty/);
  });
});
