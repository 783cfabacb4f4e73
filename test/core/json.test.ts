import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonErrorOffset, lineColumn, readJsonFile } from '../../src/core/json.js';

describe('readJsonFile', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cg-json-'));
  const file = (name: string, text: string) => {
    const f = join(dir, name);
    writeFileSync(f, text);
    return f;
  };

  it('names the file, line and column of a syntax error', () => {
    expect(() => readJsonFile(file('a.json', '{\n  "a": 1,\n  "b": }\n'))).toThrow(/a\.json.*line 3, column 8 \(found "}"\)/);
    expect(() => readJsonFile(file('b.json', '{"a": [1, 2'))).toThrow(/line 1, column 12 \(found the end of the file\)/);
    expect(() => readJsonFile(file('c.json', '{"a": 1,}'))).toThrow(/line 1, column 9/);
    expect(() => readJsonFile(file('d.json', '{"a": 01}'))).toThrow(/line 1, column 8/);
    expect(() => readJsonFile(file('e.json', '{"a": "x\ty"}'))).toThrow(/line 1, column 9/);
  });

  it('reads valid JSON and names a missing file', () => {
    expect(readJsonFile(file('ok.json', '\ufeff{"a": [1, -2.5e3, true, null, "\\u00e9"]}'))).toEqual({ a: [1, -2500, true, null, 'é'] });
    expect(() => readJsonFile(join(dir, 'missing.json'))).toThrow(/missing\.json.*cannot read file \(ENOENT\)/);
  });

  it('the scan agrees with JSON.parse: valid texts scan to their end, a cut text fails at or before the cut', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.nat(), (v, cut) => {
        const text = JSON.stringify(v, null, 1);
        expect(jsonErrorOffset(text)).toBe(text.length);
        const k = cut % (text.length + 1);
        const prefix = text.slice(0, k);
        let valid = true;
        try {
          JSON.parse(prefix);
        } catch {
          valid = false;
        }
        if (!valid) expect(jsonErrorOffset(prefix)).toBeLessThanOrEqual(prefix.length);
      }),
    );
  });

  it('lineColumn counts lines and columns from 1', () => {
    expect(lineColumn('ab\ncd', 4)).toEqual({ line: 2, column: 2 });
    expect(lineColumn('', 0)).toEqual({ line: 1, column: 1 });
  });
});
