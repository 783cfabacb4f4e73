import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InputError } from '../../src/core/errors.js';
import { makeJob, type Job } from '../../src/workload/job.js';
import { loadSwf, readSwf, readSwfHeader, SwfReader } from '../../src/workload/swf.js';

const dir = mkdtempSync(join(tmpdir(), 'cgw-swf-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string, text: string): string {
  const f = join(dir, name);
  writeFileSync(f, text);
  return f;
}

/** 18 fields: id submit wait run alloc cpu mem reqP reqT reqM status user group exe queue part prec think */
function line(id: number, submit: number, run: number, alloc: number, reqP: number, reqT: number, status = 1): string {
  return `${id} ${submit} -1 ${run} ${alloc} -1 -1 ${reqP} ${reqT} -1 ${status} 3 1 -1 1 -1 -1 -1`;
}

const SAMPLE = [
  '; Version: 2.2',
  '; Computer: Test machine',
  '; MaxJobs: 7',
  '; MaxNodes: 8',
  '; MaxProcs: 16',
  '; UnixStartTime: 1000000',
  '; TimeZoneString: Europe/Madrid',
  '; Note: first note',
  '; Note: second note',
  ';',
  '',
  line(1, 0, 100, 4, 4, 200), // line 12: a plain job
  line(2, 10, 50, -1, 2, -1, 0), // line 13: allocated -1 -> requested 2; requested time -1 -> run time
  line(3, 20, 0, 4, 4, 100, 5), // line 14: run time 0 -> skipped
  '   ', // line 15: blank
  line(4, 30, 60, 0, -1, 100), // line 16: processors 0 -> skipped
  '; a comment among the jobs', // line 17
  line(5, 40, 300, 8, 8, 120), // line 18: ran longer than requested
  `\t6\t45.5\t-1\t10\t1\t2.5\t-1\t1\t1e2\t-1\t1\t3\t1\t-1\t1\t-1\t-1\t-1\r`, // line 19: tabs, decimals, exponent, CRLF
  line(7, 50, -1, -1, -1, -1, 1), // line 20: run time -1 -> skipped
].join('\n');

function delayJob(id: string, subtime: number, ntasks: number, runtime: number, reqTime: number, lineNo: number): Job {
  // facets: user 3 (field 12), group 1 -> account (13), queue 1 -> qos (15); partition -1 (16): absent
  return makeJob({ id, subtime, ntasks, runtime, reqTime, type: 'mpi', work: 'delay', nodes: 0, source: `line ${lineNo}`, user: '3', account: '1', qos: '1' });
}

describe('SWF reader', () => {
  const file = write('sample.swf', SAMPLE);

  it('parses the header before any job is read', () => {
    const r = new SwfReader(file);
    expect(r.produced).toBe(0);
    expect(r.header.maxProcs).toBe(16);
    expect(r.header.maxNodes).toBe(8);
    expect(r.header.maxJobs).toBe(7);
    expect(r.header.unixStartTime).toBe(1000000);
    expect(r.header.timeZoneString).toBe('Europe/Madrid');
    expect(r.header.computer).toBe('Test machine');
    expect(r.header.version).toBe('2.2');
    expect(r.header.fields['Note']).toEqual(['first note', 'second note']);
    r.close();
    expect(readSwfHeader(file).maxProcs).toBe(16);
  });

  it('maps the fields to exact jobs and counts the skipped ones', () => {
    const w = loadSwf(file);
    expect(w.name).toBe('sample.swf');
    expect(w.maxProcs).toBe(16);
    expect(w.jobs).toEqual([
      delayJob('1', 0, 4, 100, 200, 12),
      delayJob('2', 10, 2, 50, 50, 13),
      delayJob('5', 40, 8, 300, 120, 18),
      delayJob('6', 45.5, 1, 10, 100, 19),
    ]);
    expect(w.skipped).toEqual({ 'runtime<=0': 2, 'processors<=0': 1 });
  });

  it('reads the user, group, queue and partition fields as facets; -1 is absent', () => {
    const f = write(
      'facets.swf',
      [
        '1 0 -1 10 1 -1 -1 1 20 -1 1 17 4 -1 2 3 -1 -1',
        '2 5 -1 10 1 -1 -1 1 20 -1 1 -1 -1 -1 -1 -1 -1 -1',
        '3 6 -1 10 1 -1 -1 1 20 -1 1 0 0 -1 0 0 -1 -1',
      ].join('\n'),
    );
    const facets = loadSwf(f).jobs.map((j) => [j.user, j.account, j.qos, j.partition]);
    expect(facets).toEqual([
      ['17', '4', '2', '3'],
      [undefined, undefined, undefined, undefined],
      ['0', '0', '0', '0'],
    ]);
  });

  it('streams with a generator whose return value is the summary', () => {
    const gen = readSwf(file);
    const ids: string[] = [];
    let r = gen.next();
    while (!r.done) {
      ids.push(r.value.id);
      r = gen.next();
    }
    expect(ids).toEqual(['1', '2', '5', '6']);
    expect(r.value.jobs).toBe(4);
    expect(r.value.lines).toBe(20);
    expect(r.value.skipped).toEqual({ 'runtime<=0': 2, 'processors<=0': 1 });
    expect(r.value.header.maxProcs).toBe(16);
  });

  it('gives the same jobs whatever the chunk size (lines split across reads, buffer growth)', () => {
    const ref = loadSwf(file);
    for (const chunkSize of [64, 100, 257]) expect(loadSwf(file, { chunkSize })).toEqual(ref);
  });

  it('grows its buffer for a line longer than a chunk', () => {
    const note = 'x'.repeat(500);
    const f = write('longline.swf', `; Note: ${note}\n; MaxProcs: 4\n${line(1, 0, 5, 2, 2, 9)}\n${line(2, 3, 6, 3, 3, 9)}\n`);
    const r = new SwfReader(f, { chunkSize: 64 });
    expect(r.header.fields['Note']).toEqual([note]);
    expect(r.header.maxProcs).toBe(4);
    expect([...r].map((j) => [j.id, j.source])).toEqual([
      ['1', 'line 3'],
      ['2', 'line 4'],
    ]);
  });

  it('reads a last line without a newline', () => {
    const f = write('nonl.swf', `${line(1, 0, 5, 2, 2, 9)}\n${line(2, 1, 6, 3, 3, 9)}`);
    expect(loadSwf(f).jobs.map((j) => j.runtime)).toEqual([5, 6]);
  });

  it('applies the options', () => {
    const byId = (opts: Parameters<typeof loadSwf>[1]) => Object.fromEntries(loadSwf(file, opts).jobs.map((j) => [j.id, j]));
    // requested processors (field 8) first
    const f2 = write('req.swf', [line(1, 0, 10, 4, 6, 20), line(2, 1, 10, 4, -1, 20)].join('\n'));
    expect(loadSwf(f2, { processors: 'requested' }).jobs.map((j) => j.ntasks)).toEqual([6, 4]);
    expect(loadSwf(f2).jobs.map((j) => j.ntasks)).toEqual([4, 4]);
    // requested time from the run time
    expect(byId({ reqTimeFromRuntime: true })['1']!.reqTime).toBe(100);
    // a job that ran longer than it requested
    expect(byId({ overrun: 'keep' })['5']).toMatchObject({ runtime: 300, reqTime: 120 });
    expect(byId({ overrun: 'raise' })['5']).toMatchObject({ runtime: 300, reqTime: 300 });
    expect(byId({ overrun: 'cap-runtime' })['5']).toMatchObject({ runtime: 120, reqTime: 120 });
    expect(byId({ maxReqTime: 150 })['1']!.reqTime).toBe(150);
    // status filter
    const st = loadSwf(file, { statuses: [1] });
    expect(st.jobs.map((j) => j.id)).toEqual(['1', '5', '6']);
    expect(st.skipped).toEqual({ 'status=0': 1, 'status=5': 1, 'processors<=0': 1, 'runtime<=0': 1 });
    // ops work model on a core of 2000 MOPS
    expect(byId({ mops: 2000 })['1']).toMatchObject({ work: 'ops', ops: 2e11, runtime: 0, reqTime: 200 });
    // seq jobs
    expect(byId({ jobType: 'seq' })['1']).toMatchObject({ type: 'seq', nodes: 1 });
    // maxJobs
    expect(loadSwf(file, { maxJobs: 2 }).jobs.map((j) => j.id)).toEqual(['1', '2']);
  });

  it('sorts an out-of-order trace when loading, and counts the inversions when streaming', () => {
    const f = write('unsorted.swf', [line(1, 50, 10, 1, 1, 10), line(2, 20, 10, 1, 1, 10), line(3, 20, 10, 1, 1, 10)].join('\n'));
    expect(loadSwf(f).jobs.map((j) => j.id)).toEqual(['2', '3', '1']);
    const r = new SwfReader(f);
    expect([...r].map((j) => j.id)).toEqual(['1', '2', '3']);
    expect(r.summary().outOfOrder).toBe(1);
  });

  it('rejects bad options with the field named', () => {
    expect(() => new SwfReader(file, { processors: 'all' as 'allocated' })).toThrow(/processors/);
    expect(() => new SwfReader(file, { chunkSize: 10 })).toThrow(/chunkSize/);
  });
});

describe('SWF errors name the file, the line and what was expected', () => {
  it('a line with the wrong number of fields', () => {
    const f = write('short.swf', `; MaxProcs: 4\n${line(1, 0, 5, 1, 1, 5)}\n1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17\n`);
    expect(() => loadSwf(f)).toThrow(InputError);
    expect(() => loadSwf(f)).toThrow(`${f}:3: expected 18 whitespace-separated SWF fields, found 17`);
  });

  it('a line with too many fields', () => {
    const f = write('long.swf', `${line(1, 0, 5, 1, 1, 5)} 99\n`);
    expect(() => loadSwf(f)).toThrow(`${f}:1: expected 18 whitespace-separated SWF fields, found 19`);
  });

  it('a field that is not a number', () => {
    const f = write('nan.swf', `${line(1, 0, 5, 1, 1, 5)}\n\n2 10 -1 abc 4 -1 -1 4 10 -1 1 1 1 -1 1 -1 -1 -1\n`);
    expect(() => loadSwf(f)).toThrow(`${f}:3: field 4 (run time): expected a number, found "abc"`);
    const g = write('nan2.swf', `1 0 -1 5 1 -1 -1 1 --5 -1 1 1 1 -1 1 -1 -1 -1\n`);
    expect(() => loadSwf(g)).toThrow(`${g}:1: field 9 (requested time): expected a number, found "--5"`);
    const h = write('nan3.swf', `1 0 -1 5 1 -1 -1 1 5 -1 1 1 1 -1 1 -1 -1 1.2.3\n`);
    expect(() => loadSwf(h)).toThrow(`${h}:1: field 18 (think time): expected a number, found "1.2.3"`);
  });

  it('a fractional processor count', () => {
    const f = write('frac.swf', `1 0 -1 5 2.5 -1 -1 1 5 -1 1 1 1 -1 1 -1 -1 -1\n`);
    expect(() => loadSwf(f)).toThrow(`${f}:1: field 5 (allocated processors): expected an integer, found 2.5`);
  });

  it('a missing file', () => {
    expect(() => loadSwf(join(dir, 'nope.swf'))).toThrow(/nope\.swf: cannot read file \(ENOENT\)/);
  });

  it('the error surfaces while streaming, after the good jobs', () => {
    const f = write('late.swf', `${line(1, 0, 5, 1, 1, 5)}\n${line(2, 1, 5, 1, 1, 5)}\n1 2 3\n`);
    const r = new SwfReader(f);
    expect(r.next()!.id).toBe('1');
    expect(r.next()!.id).toBe('2');
    expect(() => r.next()).toThrow(`${f}:3: expected 18`);
  });
});
