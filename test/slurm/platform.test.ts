import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RAIJIN_PLATFORM, SlurmPlatform, loadSlurmPlatform } from '../../src/slurm/platform.js';

describe('Slurm platforms in a few lines', () => {
  it("the seed's Raijin is one entry: 3,600 x 16 = 57,600 cores, loaded in milliseconds", () => {
    const t0 = performance.now();
    const p = new SlurmPlatform(RAIJIN_PLATFORM);
    expect(performance.now() - t0).toBeLessThan(50);
    expect(p.totalCores).toBe(57_600);
    expect(p.partitions[0]).toMatchObject({ name: 'normal', groups: [0], maxTime: 172_800, maxNodes: 3600, preemptMode: 'off', priorityTier: 1 });
  });

  it('partitions: node sets and limits', () => {
    const p = new SlurmPlatform({
      groups: [
        { name: 'cpu', count: 100, cores: 16 },
        { name: 'big', count: 4, cores: 64 },
      ],
      partitions: [
        { name: 'normal', groups: ['cpu', 'big'], max_time: 3600, max_nodes: 10 },
        { name: 'express', groups: ['big'], allow_users: [1, 2], priority_tier: 5, priority_job_factor: 4 },
      ],
    });
    expect(p.totalCores).toBe(1856);
    expect(p.maxPartitionFactor).toBe(4);
    expect(p.refusal(0, 160, 3600, 0)).toBeNull();
    expect(p.refusal(0, 161, 3600, 0)).toBeNull(); // 11 nodes of cpu (over max_nodes), but 3 nodes of big
    expect(p.refusal(0, 257, 3600, 0)).toMatch(/max_nodes 10/);
    expect(p.refusal(0, 16, 3601, 0)).toMatch(/max_time/);
    expect(p.refusal(1, 1, 10, 0)).toMatch(/user 0 not allowed/);
    expect(p.refusal(1, 256, 10, 1)).toBeNull();
    expect(p.refusal(1, 257, 10, 1)).toMatch(/exceed/);
    expect(p.partitionIndex('express')).toBe(1);
    expect(() => p.partitionIndex('expres')).toThrow(/did you mean "express"/);
  });

  it('errors name the file and the JSON path', () => {
    const dir = mkdtempSync(join(tmpdir(), 'slurm-'));
    try {
      const f = join(dir, 'p.json');
      writeFileSync(f, JSON.stringify({ groups: [{ name: 'a', count: 0, cores: 16 }], partitions: [{ name: 'p', groups: ['a'] }] }));
      expect(() => loadSlurmPlatform(f)).toThrow(/p\.json: \$\.groups\[0\]\.count/);
      writeFileSync(f, JSON.stringify({ groups: [{ name: 'a', count: 1, cores: 16 }], partitions: [{ name: 'p', groups: ['b'] }] }));
      expect(() => loadSlurmPlatform(f)).toThrow(/\$\.partitions\[0\]\.groups\[0\]: unknown group "b"/);
      writeFileSync(f, JSON.stringify({ groups: [{ name: 'a', count: 1, cores: 16, gpus: 2 }], partitions: [{ name: 'p', groups: ['a'] }] }));
      expect(() => loadSlurmPlatform(f)).toThrow(/gpus/);
      writeFileSync(f, JSON.stringify({ groups: [{ name: 'a', count: 1, cores: 16 }], partitions: [{ name: 'p', groups: ['a'], preempt_mode: 'gang' }] }));
      expect(() => loadSlurmPlatform(f)).toThrow(/\$\.partitions\[0\]\.preempt_mode/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
