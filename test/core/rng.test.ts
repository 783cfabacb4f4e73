import { describe, expect, it } from 'vitest';
import { closestName, didYouMean } from '../../src/core/errors.js';
import { derive, PythonRandom } from '../../src/core/rng.js';

describe('PythonRandom is CPython random, bit for bit', () => {
  // Values printed by CPython 3.11: random.seed(s); [random.random() for _ in range(3)]; random.getrandbits(32)
  const cases: [number | bigint, number[], number][] = [
    [0, [0.8444218515250481, 0.7579544029403025, 0.420571580830845], 1112038970],
    [1995, [0.7219763839447979, 0.45445358729574525, 0.8281167535104594], 2703968759],
    [2n ** 40n + 7n, [0.6137037779936511, 0.8149162973309487, 0.9450115087592873], 2449809396],
  ];
  for (const [seed, randoms, bits] of cases)
    it(`seed ${seed}: random() x3 and getrandbits(32)`, () => {
      const r = new PythonRandom(seed);
      expect([r.next(), r.next(), r.next()]).toEqual(randoms);
      expect(r.getrandbits(32)).toBe(bits);
    });

  it('shuffle and randint as CPython (seed 42)', () => {
    // random.seed(42); x = list(range(10)); random.shuffle(x); random.randint(0, 9990); random.random()
    const r = new PythonRandom(42);
    expect(r.shuffle([0, 1, 2, 3, 4, 5, 6, 7, 8, 9])).toEqual([7, 3, 2, 8, 5, 6, 9, 4, 0, 1]);
    expect(r.randint(0, 9990)).toBe(9674);
    expect(r.next()).toBe(0.4219218196852704);
  });

  it('a negative seed seeds as its absolute value (random.seed(-n) == random.seed(n))', () => {
    expect(new PythonRandom(-1995).next()).toBe(new PythonRandom(1995).next());
  });
});

describe('derived streams', () => {
  it('the same seed and label give the same numbers; other labels other numbers', () => {
    expect(derive(7, 'a').next()).toBe(derive(7, 'a').next());
    expect(derive(7, 'a').next()).not.toBe(derive(7, 'b').next());
  });
});

describe('did you mean', () => {
  const fields = ['mem', 'mem_vol', 'req_ops', 'req_time', 'ntasks', 'ntasks_per_node'];
  it('suggests the closest known name for a misspelling', () => {
    expect(closestName('memvol', fields)).toBe('mem_vol');
    expect(closestName('req_tme', fields)).toBe('req_time');
    expect(closestName('ntask_per_node', fields)).toBe('ntasks_per_node');
    expect(didYouMean('memvol', fields)).toBe(' (did you mean "mem_vol"?)');
  });
  it('suggests nothing for a name unlike any', () => {
    expect(closestName('walltime', fields)).toBeNull();
    expect(didYouMean('priority', fields)).toBe('');
  });
});
