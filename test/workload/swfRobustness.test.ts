/**
 * SWF reader robustness (issue 18): header keys that are names of Object.prototype members, duplicate
 * job ids (refused with both lines), and the header of a trace without MaxProcs.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/core/errors.js';
import { loadSwf, readSwfHeader } from '../../src/workload/swf.js';

const line = (id: number, sub = 0) => `${id} ${sub} 0 10 2 -1 -1 2 20 -1 1 -1 -1 -1 -1 -1 -1 -1\n`;

function swf(text: string): string {
  const f = join(mkdtempSync(join(tmpdir(), 'cg-swfr-')), 't.swf');
  writeFileSync(f, text);
  return f;
}

describe('SWF reader robustness', () => {
  it('header keys named like Object.prototype members are plain fields', () => {
    const keys = ['toString', 'constructor', 'hasOwnProperty', 'valueOf'];
    // `__proto__` is not a header key (keys begin with a letter): an ordinary comment, which must not touch any prototype
    const f = swf(`${keys.map((k) => `; ${k}: x\n`).join('')}; __proto__: x\n; MaxProcs: 4\n${line(1)}`);
    const w = loadSwf(f);
    expect(w.jobs).toHaveLength(1);
    expect(w.maxProcs).toBe(4);
    const h = readSwfHeader(f);
    for (const k of keys) expect(h.fields[k]).toEqual(['x']);
    expect(Object.getPrototypeOf(h.fields)).toBe(null);
  });

  it('a duplicate job id is an input error naming both lines', () => {
    const f = swf(`; MaxProcs: 4\n${line(1)}${line(2, 1)}${line(1, 2)}`);
    expect(() => loadSwf(f)).toThrow(InputError);
    expect(() => loadSwf(f)).toThrow(/t\.swf:4.*job id 1 appears twice \(first on line 2\)/);
  });

  it('distinct ids load, and a trace without MaxProcs has no machine size', () => {
    const w = loadSwf(swf(`${line(1)}${line(2, 1)}${line(3, 2)}`));
    expect(w.jobs.map((j) => j.id)).toEqual(['1', '2', '3']);
    expect(w.maxProcs).toBeUndefined();
  });
});
