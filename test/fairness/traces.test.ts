import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { fairPreset, runFairPreset } from '../../src/fairness/preset.js';
import { firstFit } from '../../src/scheduling/multiResource.js';
import {
  externalSortCsv,
  type GoogleSummary,
  newSummary,
  readAlibaba2018,
  readGoogle2011,
  readGoogle2019,
  readLines,
  readNativeCsv,
  readNativeJsonl,
  readSwfTasks,
  readTrace,
  writeNativeCsv,
} from '../../src/fairness/traces/index.js';

const dir = mkdtempSync(join(tmpdir(), 'cg-fair-traces-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const file = (text: string) => {
  const f = join(dir, `f${n++}`);
  writeFileSync(f, text);
  return f;
};
const gsum = (): GoogleSummary => ({ rows: 0, produced: 0, skipped: {}, ends: {} });

describe('readLines', () => {
  it('splits on LF and CRLF across chunk boundaries, keeps a last line without newline', () => {
    const f = file('a,b\r\nccc\n\nlast');
    expect([...readLines(f, 3)].map((l) => [l.text, l.lineNo])).toEqual([
      ['a,b', 1],
      ['ccc', 2],
      ['', 3],
      ['last', 4],
    ]);
  });
  it('names a missing file', () => {
    expect(() => [...readLines(join(dir, 'nope'))]).toThrow(/nope: cannot open/);
  });
});

describe('Google 2011 task_events', () => {
  // time(us), missing, job, index, machine, type, user, class, priority, cpu, mem, disk, diff
  const rows = [
    '0,,100,0,,1,alice,0,0,0.125,0.0625,0,0', // scheduled before the window, no SUBMIT seen
    '1000000,,200,0,,0,bob,0,0,0.25,0.5,0,0', // submit at 1 s
    '2000000,,200,1,,0,bob,0,0,0.0625,,0,0', // submit, memory missing
    '3000000,,200,0,m1,1,bob,0,0,,,0,0', // schedule (no request in the row: keeps the submitted one)
    '4000000,,200,1,m2,1,bob,0,0,,,0,0', // schedule (memory still missing)
    '5000000,,200,0,m1,2,bob,0,0,,,0,0', // EVICT after 2 s of run
    '6000000,,200,0,,0,bob,0,0,0.25,0.25,0,0', // resubmitted with less memory
    '7000000,,200,0,m3,1,bob,0,0,,,0,0', // rescheduled
    '8000000,,200,1,m2,4,bob,0,0,,,0,0', // FINISH of index 1: missing memory -> skipped
    '9000000,,100,0,,4,alice,0,0,,,0,0', // FINISH of the pre-window task
    '10000000,,300,0,,0,carol,0,0,0.5,0.5,0,0', // submitted, killed while pending
    '11000000,,300,0,,5,carol,0,0,,,0,0',
    '12000000,,200,0,m3,4,bob,0,0,,,0,0', // second run finishes after 5 s
    '13000000,,400,0,,0,dave,0,0,0.5,0.5,0,0', // pending at the end
    '9223372036854775807,,400,0,,1,dave,0,0,,,0,0', // after the window
  ].join('\n');

  it('pairs events into one task per run, with the documented skips', () => {
    const s = gsum();
    const tasks = [...readGoogle2011(file(`${rows}\n`), { cpuScale: 16, memoryScale: 64 }, s)];
    expect(tasks).toEqual([
      { submit: 1, cpu: 4, memory: 32, duration: 2, user: 'bob' }, // the evicted run
      { submit: 0, cpu: 2, memory: 4, duration: 9, user: 'alice' },
      { submit: 6, cpu: 4, memory: 16, duration: 5, user: 'bob' }, // the rescheduled run
    ]);
    expect(s.ends).toEqual({ EVICT: 1, FINISH: 3 });
    expect(s.skipped).toEqual({ 'no-submit': 1, 'missing-request': 1, 'never-scheduled': 1, 'after-window': 1, 'pending-at-end': 1 });
    expect(s.rows).toBe(15);
  });

  it('refuses unsorted rows and bad event types with the line', () => {
    expect(() => [...readGoogle2011(file('5000000,,1,0,,0,u,0,0,1,1,0,0\n1000000,,1,1,,0,u,0,0,1,1,0,0\n'))]).toThrow(
      /:2: rows are not in time order.*--key-column 0/,
    );
    expect(() => [...readGoogle2011(file('5,,1,0,,9,u,0,0,1,1,0,0\n'))]).toThrow(/:1: field 5 \(event type\)/);
  });

  it('convert --sort path: completion order -> native CSV -> sorted by submit -> the engine runs it', () => {
    const native = join(dir, 'g.csv');
    const sorted = join(dir, 'g-sorted.csv');
    expect(writeNativeCsv(readGoogle2011(file(rows), { cpuScale: 16, memoryScale: 64 }), native)).toBe(3);
    expect(() => {
      runFairPreset(fairPreset([{ count: 1, cpus: 16, memory: 64 }], readNativeCsv(native), firstFit()));
    }).toThrow(/not sorted/);
    expect(externalSortCsv(native, sorted, { key: 'submit', header: true, chunkLines: 2 })).toEqual({ rows: 3, runs: 2 });
    expect([...readNativeCsv(sorted)].map((t) => t.submit)).toEqual([0, 1, 6]);
    const stats = runFairPreset(fairPreset([{ count: 1, cpus: 16, memory: 64 }], readNativeCsv(sorted), firstFit()));
    expect(stats.finished).toBe(3);
  });
});

describe('Google 2019 instance_events (BigQuery JSON export)', () => {
  it('pairs events, takes users from collection_events, accepts names and string integers', () => {
    const coll = file(`${JSON.stringify({ time: '0', type: 0, collection_id: '7', user: 'erin' })}\n`);
    const ev = [
      { time: '1000000', type: 0, collection_id: '7', instance_index: 0, resource_request: { cpus: 0.5, memory: 0.25 } },
      { time: '1500000', type: 'QUEUE', collection_id: '7', instance_index: 0 },
      { time: '2000000', type: 3, collection_id: '7', instance_index: 0, machine_id: '9' },
      { time: '2500000', type: 0, collection_id: '8', instance_index: 2 }, // no resource request at all
      { time: '3000000', type: 3, collection_id: '8', instance_index: 2 },
      { time: '4000000', type: 10, collection_id: '7', instance_index: 0, resource_request: { cpus: 0.5, memory: 0.5 } },
      { time: '6000000', type: 'FINISH', collection_id: '7', instance_index: 0 },
      { time: '7000000', type: 7, collection_id: '8', instance_index: 2 },
    ];
    const f = file(`${ev.map((e) => JSON.stringify(e)).join('\n')}\n`);
    const s = gsum();
    expect([...readGoogle2019(f, { collectionEvents: coll }, s)]).toEqual([{ submit: 1, cpu: 0.5, memory: 0.5, duration: 4, user: 'erin' }]);
    expect(s.skipped).toEqual({ 'missing-request': 1 });
    expect(s.ends).toEqual({ FINISH: 1, KILL: 1 });
    const plain = [...readGoogle2019(f)];
    expect(plain[0]!.user).toBe('collection:7');
  });

  it('names the line of a bad event', () => {
    expect(() => [...readGoogle2019(file('{"time": 1, "type": 42, "collection_id": 1}\n'))]).toThrow(/:1: \$\.type/);
    expect(() => [...readGoogle2019(file('{oops\n'))]).toThrow(/:1: not JSON/);
  });
});

describe('Alibaba 2018 batch_task', () => {
  it('expands instances, scales plan_cpu/plan_mem, skips what the schema marks invalid', () => {
    const rows = [
      'M1,2,j_1,1,Terminated,100,160,50,0.5',
      'R2_1,1,j_1,1,Terminated,120,130,200,1.2',
      'M1,3,j_2,1,Running,100,0,100,1',
      'M3,1,j_3,1,Terminated,100,90,100,1', // ends before it starts
      'M4,1,j_3,1,Terminated,,90,100,1', // missing start
      'M5,1,j_4,1,Terminated,150,170,0,1', // no CPU
      'M6,,j_4,1,Terminated,150,170,100,1', // missing instance_num
    ].join('\n');
    const s = newSummary();
    const tasks = [...readAlibaba2018(file(rows), { memoryScale: 100 }, s)];
    expect(tasks).toEqual([
      { submit: 100, cpu: 0.5, memory: 0.5, duration: 60, user: 'j_1' },
      { submit: 100, cpu: 0.5, memory: 0.5, duration: 60, user: 'j_1' },
      { submit: 120, cpu: 2, memory: 1.2, duration: 10, user: 'j_1' },
    ]);
    expect(s.skipped).toEqual({ 'status=Running': 1, 'bad-times': 1, 'missing-field': 2, 'zero-cpu': 1 });
  });
});

describe('native and SWF', () => {
  it('native CSV: columns by header, user optional, errors with line and column', () => {
    expect([...readNativeCsv(file('duration,submit,cpu,memory\n5,0,1,2\n'))]).toEqual([{ submit: 0, cpu: 1, memory: 2, duration: 5, user: 'default' }]);
    expect(() => [...readNativeCsv(file('submit,cpu,memory\n'))]).toThrow(/missing column "duration"/);
    expect(() => [...readNativeCsv(file('submit,cpu,memory,duration\n0,x,1,1\n'))]).toThrow(/:2: column cpu/);
    // out-of-range values are refused with file and line, as in the JSON Lines reader (not later by the engine, without a line)
    expect(() => [...readNativeCsv(file('submit,cpu,memory,duration\n0,1,1,1\n5,0,1,10\n'))]).toThrow(/:3: column cpu: expected a number > 0, found 0/);
    expect(() => [...readNativeCsv(file('submit,cpu,memory,duration\n-1,1,1,1\n'))]).toThrow(/:2: column submit: expected a number >= 0/);
    expect(() => [...readNativeCsv(file('submit,cpu,memory,duration\n0,1,-2,1\n'))]).toThrow(/:2: column memory/);
    expect(() => [...readNativeCsv(file('submit,cpu,memory,duration\n0,1,2,-1\n'))]).toThrow(/:2: column duration/);
  });

  it('native JSON Lines with zod', () => {
    const f = file('# tasks\n{"submit":0,"cpu":1,"memory":2,"duration":3,"user":"a"}\n\n{"submit":1,"cpu":2,"memory":0,"duration":1}\n');
    expect([...readNativeJsonl(f)]).toEqual([
      { submit: 0, cpu: 1, memory: 2, duration: 3, user: 'a' },
      { submit: 1, cpu: 2, memory: 0, duration: 1, user: 'default' },
    ]);
    expect(() => [...readNativeJsonl(file('{"submit":0,"cpu":0,"memory":1,"duration":1}\n'))]).toThrow(/:1/);
    expect(() => [...readNativeJsonl(file('{"submit":0,"cpu":1,"memory":1,"duration":1,"gpu":1}\n'))]).toThrow(/gpu/);
  });

  it('SWF: processors, memory per processor in KB, user id', () => {
    const swf = [
      '; Version: 2.2',
      '1 0 5 100 4 -1 1048576 4 200 -1 1 7 1 -1 1 -1 -1 -1',
      '2 10 0 -1 2 -1 -1 2 200 -1 0 7 1 -1 1 -1 -1 -1',
      '3 20 0 50 -1 -1 -1 8 200 524288 1 9 1 -1 1 -1 -1 -1',
    ].join('\n');
    const s = newSummary();
    expect([...readSwfTasks(file(swf), {}, s)]).toEqual([
      { submit: 0, cpu: 4, memory: 4, duration: 100, user: 'u7' },
      { submit: 20, cpu: 8, memory: 4, duration: 50, user: 'u9' },
    ]);
    expect(s.skipped).toEqual({ 'no-runtime': 1 });
    expect(() => [...readSwfTasks(file('1 2 3\n'))]).toThrow(/:1: expected 18 numeric fields/);
    expect([...readTrace(file(swf), 'swf')]).toHaveLength(2);
  });
});

describe('external sort', () => {
  it('sorts by a numeric column, stable, with bounded runs (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 20 }), fc.integer()), { maxLength: 80 }), fc.integer({ min: 1, max: 9 }), (rows, chunk) => {
        const input = file(rows.map(([k, v], i) => `${v},${k},${i}`).join('\n'));
        const out = join(dir, `sorted${n++}`);
        const r = externalSortCsv(input, out, { key: 1, chunkLines: chunk });
        expect(r.rows).toBe(rows.length);
        expect(r.runs).toBe(Math.ceil(rows.length / chunk));
        const expected = rows.map(([k, v], i) => ({ k, line: `${v},${k},${i}` })).sort((a, b) => a.k - b.k);
        const got = readFileSync(out, 'utf8')
          .split('\n')
          .filter((l) => l !== '');
        expect(got).toEqual(expected.map((e) => e.line));
      }),
      { numRuns: 40, seed: 16 },
    );
  });

  it('keeps the header, refuses a non-numeric key with its line', () => {
    const out = join(dir, 'h.csv');
    externalSortCsv(file('submit,x\n3,a\n1,b\n'), out, { key: 'submit', header: true });
    expect(readFileSync(out, 'utf8')).toBe('submit,x\n1,b\n3,a\n');
    expect(() => externalSortCsv(file('submit,x\n3,a\nz,b\n'), out, { key: 0, header: true })).toThrow(/:3: column 0/);
    expect(() => externalSortCsv(file('a,b\n'), out, { key: 'c', header: true })).toThrow(/no column "c"/);
  });
});
