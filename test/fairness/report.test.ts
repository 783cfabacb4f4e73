import { describe, expect, it } from 'vitest';
import { reproduceFairness } from '../../src/fairness/report.js';
import { checkSvg } from '../report/svgCheck.js';

describe('reproduceFairness', () => {
  it('returns the sweep, the speed row, findings and well-formed Figure 5.3/5.4 files', () => {
    const { report, files } = reproduceFairness({ seed: 11, speedTasks: 5000, chartFs: [1, 0.5] });
    expect(report.name).toBe('fairness');
    expect(report.tables.sweep!.map((r) => r.f)).toEqual([0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1]);
    expect(Object.keys(report.tables.sweep![0]!)).toContain('share_user9');
    expect(report.tables.speed![0]!.tasks).toBe(5000);
    // the speed finding is only claimed for the thesis's 200,000 tasks
    expect(report.findings.map((f) => f.id)).toEqual(['drf-fair', 'utilisation-jump-0.8', 'user9-starves-first', 'least-served']);
    expect(report.findings.every((f) => f.holds)).toBe(true);
    expect(Object.keys(files).sort()).toEqual([
      'fairness-load-f0.5.csv',
      'fairness-load-f1.csv',
      'fairness-shares-f0.5.csv',
      'fairness-shares-f0.5.svg',
      'fairness-shares-f1.csv',
      'fairness-shares-f1.svg',
      'fairness-utilisation.svg',
    ]);
    for (const [name, text] of Object.entries(files)) if (name.endsWith('.svg')) checkSvg(text);
    expect(files['fairness-shares-f1.csv']!.split('\n')[0]).toBe('time,user0,user1,user2,user3,user4,user5,user6,user7,user8,user9');
  }, 30_000);
});
