/**
 * tools/netsim against SimGrid itself (Debian's python3-simgrid, SimGrid 3.32, run as a process): on
 * every topology case (flat cluster with backbone and its variants, fat-trees, tori, dragonflies, explicit
 * routes, two clusters), every route between every pair of hosts is SimGrid's, and 150 transfers with
 * staggered starts (100+ at once) complete at SimGrid's times within 1e-6 relative, under CM02 and LV08.
 * Skipped, saying so, where SimGrid's Python bindings are not installed (CI installs them).
 */
import { describe, expect, it } from 'vitest';
import { simgridAvailable, validate } from '../../tools/netsim/validate.js';

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
  },
);
