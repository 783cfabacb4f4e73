/**
 * `clustergym convert`: SWF, Batsim and malleable workloads to native JSON, which loads back into the
 * same jobs; bad input exits 2 naming the SWF line or the JSON path.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadPlatform } from '../../src/platform/loader.js';
import { loadWorkload } from '../../src/workload/index.js';
import { HAVE_SHARED, SHARED_DATA, SHARED_MISSING, cli } from '../helpers.js';

const strip = (jobs: { source: string }[]) => jobs.map(({ source: _s, ...j }) => j);

describe.skipIf(!HAVE_SHARED)(`convert real workloads ${HAVE_SHARED ? '' : SHARED_MISSING}`, () => {
  for (const rel of ['traces/lublin_256.swf', 'batsim/example_workload_hpc_seed1_jobs250.json']) {
    it(`${rel} -> native JSON -> the same jobs`, () => {
      const out = join(mkdtempSync(join(tmpdir(), 'cg-conv-')), 'w.json');
      const r = cli(['convert', '--workload', join(SHARED_DATA, rel), '--out', out]);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const original = loadWorkload(join(SHARED_DATA, rel));
      expect(r.stdout).toMatch(new RegExp(`wrote ${original.jobs.length} jobs`));
      const back = loadWorkload(out);
      expect(strip(back.jobs)).toEqual(strip(original.jobs));
      expect(JSON.parse(readFileSync(out, 'utf8')).jobs).toHaveLength(original.jobs.length);
    });
  }
});

describe('convert --platform', () => {
  it('SimGrid XML -> native JSON that loads back into the same platform; a bad file exits 2 naming the element', () => {
    const d = mkdtempSync(join(tmpdir(), 'cg-conv-'));
    const xml = join(d, 'c.xml');
    writeFileSync(
      xml,
      '<?xml version="1.0"?>\n<platform version="4.1"><zone id="AS0" routing="Full">' +
        '<cluster id="A" prefix="a" suffix="" radical="0-7" speed="1Gf,500Mf" core="2" bw="1GBps" lat="5us" bb_bw="3GBps" bb_lat="3us">' +
        '<prop id="wattage_per_state" value="95:190, 90:150"/></cluster></zone></platform>\n',
    );
    const out = join(d, 'c.json');
    const r = cli(['convert', '--platform', xml, '--out', out]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/wrote platform c \(8 nodes, 16 cores, with its network\)/);
    const back = loadPlatform(out);
    expect(back.description.clusters).toEqual(loadPlatform(xml).description.clusters);
    expect(back.description.network).toEqual(loadPlatform(xml).description.network);
    expect(JSON.parse(readFileSync(out, 'utf8')).clusters[0].nodes).toHaveLength(1);
    writeFileSync(xml, '<platform version="4.1"><zone id="AS0" routing="Full"><host id="h" speed="fast"/></zone></platform>');
    const bad = cli(['convert', '--platform', xml, '--out', out]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/c\.xml: <platform> > <zone id="AS0"> > <host id="h">: attribute speed: cannot read a number in "fast"/);
  });
});

describe('convert a malleable workload', () => {
  it('writes a native workload of jobs with the malleable facet (detected, or --format malleable) that reads back into the same jobs', () => {
    const d = mkdtempSync(join(tmpdir(), 'cg-conv-'));
    const f = join(d, 'm.json');
    const source = {
      nodes: 16,
      apps: { st: { t1: 0.4, serial: 0.05 } },
      jobs: [
        { id: 'a', subtime: 0, app: 'st', steps: 500, malleable: { min: 2, max: 8, pref: 4, inhibit: 15 } },
        { id: 'b', subtime: 12, app: 'st', steps: 100, nodes: 4 },
      ],
    };
    writeFileSync(f, JSON.stringify(source));
    for (const extra of [[], ['--format', 'malleable']]) {
      const out = join(d, `o${extra.length}.json`);
      const r = cli(['convert', '--workload', f, '--out', out, ...extra]);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/wrote 2 jobs/);
      const native = JSON.parse(readFileSync(out, 'utf8'));
      expect(native.max_procs).toBe(16);
      expect(native.jobs[0].malleable).toEqual({ min: 2, max: 8, pref: 4, factor: 2, inhibit: 15, steps: 500, speedup: { name: 'st', t1: 0.4, serial: 0.05 } });
      expect(native.jobs[1].malleable).toEqual({ steps: 100, speedup: { name: 'st', t1: 0.4, serial: 0.05 } });
      const w = loadWorkload(out);
      // d(8) = 0.4 x (0.05 + 0.95 / 8); rigid b at 4 nodes
      expect(w.jobs.map((j) => [j.id, j.nodes, j.runtime])).toEqual([
        ['a', 8, 500 * 0.4 * (0.05 + 0.95 / 8)],
        ['b', 4, 100 * 0.4 * (0.05 + 0.95 / 4)],
      ]);
    }
    writeFileSync(f, JSON.stringify({ jobs: [{ subtime: 0, app: 'nope', steps: 1, nodes: 1 }] }));
    const unknown = cli(['convert', '--workload', f, '--out', join(d, 'x.json')]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/m\.json: \$\.jobs\[0\]\.app: unknown application "nope"/);
  });
});

describe('convert bad input', () => {
  it('an SWF line with the wrong number of fields exits 2 naming the line', () => {
    const d = mkdtempSync(join(tmpdir(), 'cg-conv-'));
    const f = join(d, 'bad.swf');
    writeFileSync(f, '; MaxProcs: 4\n1 0 0 10 2 -1 -1 2 20 -1 1 -1 -1 -1 -1 -1 -1 -1\n2 5 0 10 2 -1 -1 2 20\n');
    const r = cli(['convert', '--workload', f, '--out', join(d, 'o.json')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/bad\.swf:3/);
    expect(r.stderr).toMatch(/expected 18 whitespace-separated SWF fields, found 9/);
  });
  it('a missing --out exits 2', () => {
    const r = cli(['convert', '--workload', 'x.swf']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--out: Required/);
  });
});
