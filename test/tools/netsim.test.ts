/**
 * tools/netsim against SimGrid itself (Debian's python3-simgrid, SimGrid 3.32, run as a process): on
 * every topology case (flat cluster with backbone and its variants, fat-trees, tori, dragonflies, explicit
 * routes, two clusters), every route between every pair of hosts is SimGrid's, and 150 transfers with
 * staggered starts (100+ at once) complete at SimGrid's times within 1e-6 relative, under CM02 and LV08.
 * Skipped, saying so, where SimGrid's Python bindings are not installed (CI installs them).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { randomFlows, topologyCases } from '../../tools/netsim/scenarios.js';
import { runInProcess, runSimGrid, simgridAvailable, validate } from '../../tools/netsim/validate.js';

const HAVE_SIMGRID = simgridAvailable();

describe.skipIf(!HAVE_SIMGRID)(
  `the flow model against SimGrid${HAVE_SIMGRID ? '' : ' (skipped: python3 cannot import simgrid; apt-get install python3-simgrid)'}`,
  () => {
    it('every route and every completion time of every topology case', { timeout: 240_000 }, () => {
      const { results, routes } = validate({ flows: 150, seed: 3, models: ['cm02', 'lv08'], scale: 1, span: 0.5, inProcess: true });
      expect(routes.length).toBe(12);
      for (const r of routes) expect(r.first_mismatch, r.case).toBe('');
      expect(results.length).toBe(24);
      for (const r of results) {
        expect(r.max_rel_error, `${r.case} ${r.model} (${r.worst_flow})`).toBeLessThanOrEqual(1e-6);
        expect(r.max_concurrent, `${r.case} ${r.model}`).toBeGreaterThanOrEqual(100);
      }
    });

    it("SimGrid driven by one actor (the benchmark's fast driver) completes every transfer when one actor per flow does, and when we do", {
      timeout: 60_000,
    }, () => {
      const c = topologyCases(1).find((x) => x.name === 'fat-tree')!;
      const dir = mkdtempSync(join(tmpdir(), 'cg-netsim-driver-'));
      try {
        const platform = join(dir, 'ft.xml');
        const flowsFile = join(dir, 'flows.json');
        // starts in random order, some equal (rounded to 0.1 s): the driver sorts them, ties in input order
        const flows = randomFlows(c.hosts, 200, 5, 2).map((f) => ({ ...f, start: Math.round(f.start * 10) / 10 }));
        writeFileSync(platform, c.xml);
        writeFileSync(flowsFile, JSON.stringify(flows));
        const actors = runSimGrid(platform, flowsFile, 'lv08', 'actors').flows;
        const driver = runSimGrid(platform, flowsFile, 'lv08', 'driver').flows;
        const ours = runInProcess(platform, c.xml, flows, 'lv08').flows;
        // the same up to rounding (the order SimGrid's solver sees the flows in differs)
        const rel = (a: number, b: number) => Math.abs(a - b) / b;
        for (let i = 0; i < flows.length; i++) {
          expect(rel(driver[i]!.finish, actors[i]!.finish), String(flows[i]!.id)).toBeLessThanOrEqual(1e-12);
          expect(rel(ours[i]!.finish, driver[i]!.finish), String(flows[i]!.id)).toBeLessThanOrEqual(1e-6);
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  },
);
