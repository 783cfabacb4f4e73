/**
 * Golden per-job schedules (see `cases.ts`): every engine gives, job for job and to the last bit, the
 * schedule it gave when the file was written. A difference names the case and the first line that
 * differs. `CLUSTERGYM_GOLDEN_WRITE=1 npx vitest run test/golden` rewrites the files.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GOLDEN_CASES } from './cases.js';

const DIR = join(import.meta.dirname, 'schedules');
const WRITE = process.env.CLUSTERGYM_GOLDEN_WRITE === '1';

describe('golden per-job schedules', () => {
  it('every engine and preset has golden cases', () => {
    const engines = new Set(GOLDEN_CASES.map((c) => c.engine));
    expect([...engines].sort()).toEqual(['main', 'one engine', 'timesharing']);
    expect(new Set(GOLDEN_CASES.map((c) => c.name)).size).toBe(GOLDEN_CASES.length);
  });
  for (const c of GOLDEN_CASES) {
    it(`${c.engine}: ${c.name}`, () => {
      const got = c.run();
      const file = join(DIR, `${c.file ?? c.name}.csv`);
      if (WRITE && c.file === undefined) {
        mkdirSync(DIR, { recursive: true });
        writeFileSync(file, got);
        return;
      }
      expect(existsSync(file), `${file} is missing: write it with CLUSTERGYM_GOLDEN_WRITE=1`).toBe(true);
      const want = (c.expected ?? ((x: string) => x))(readFileSync(file, 'utf8'));
      if (got !== want) {
        const a = want.split('\n');
        const b = got.split('\n');
        let i = 0;
        while (i < a.length && a[i] === b[i]) i++;
        expect(`${c.file ?? c.name}.csv line ${i + 1}: ${b[i]}`).toBe(`${c.file ?? c.name}.csv line ${i + 1}: ${a[i]}`);
      }
      // a case that schedules nothing would prove nothing
      expect(got.split('\n').length).toBeGreaterThan(50);
    }, 60_000);
  }
});
