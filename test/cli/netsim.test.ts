/**
 * `clustergym netsim`: a SimGrid platform and a flows file in, completion times out (the hand-computed
 * backbone scenario of test/platform/flows.test.ts); bad input exits 2 naming the file and JSON path.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../helpers.js';

const XML =
  '<platform version="4.1"><zone id="w" routing="Full"><cluster id="c" prefix="n" suffix="" radical="0-3" speed="1Gf" bw="125MBps" lat="50us" bb_bw="200MBps" bb_lat="10us"/></zone></platform>';

describe('netsim', () => {
  const d = mkdtempSync(join(tmpdir(), 'cg-netsim-'));
  const platform = join(d, 'c.xml');
  writeFileSync(platform, XML);
  it('prints every flow with its completion time (--json), in input order', () => {
    const flows = join(d, 'f.json');
    writeFileSync(
      flows,
      JSON.stringify([
        { id: 'b', src: 'n2', dst: 'n3', size: 5e7, start: 0.1 },
        { id: 'a', src: 'n0', dst: 'n1', size: 1e8, start: 0 },
      ]),
    );
    const r = cli(['netsim', '--platform', platform, '--flows', flows, '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { flows: { id: string; finish: number }[] };
    expect(out.flows.map((f) => f.id)).toEqual(['b', 'a']);
    expect(out.flows[0]!.finish).toBeCloseTo(0.62511, 9);
    expect(out.flows[1]!.finish).toBeCloseTo(0.92511, 9);
    const lv = cli(['netsim', '--platform', platform, '--flows', flows, '--model', 'lv08']);
    expect(lv.code).toBe(0);
    expect(lv.stdout).toMatch(/^id\s+src\s+dst\s+size\s+start\s+finish/);
  });
  it('an unknown host or a missing flag exits 2', () => {
    const flows = join(d, 'bad.json');
    writeFileSync(flows, JSON.stringify([{ id: 1, src: 'n0', dst: 'n9', size: 1, start: 0 }]));
    const r = cli(['netsim', '--platform', platform, '--flows', flows]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/bad\.json: \$\[0\]\.dst: no host named "n9" in the platform/);
    const m = cli(['netsim', '--platform', platform]);
    expect(m.code).toBe(2);
    expect(m.stderr).toMatch(/--flows: Required/);
  });
});
