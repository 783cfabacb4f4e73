/**
 * The leaderboard as text: the terminal table and headline of a setting, the markdown page, and
 * the SVG of a setting (each policy's paired difference to the best heuristic with its 95 %
 * bootstrap interval; heuristics' intervals are computed the same way as the learned ones').
 */
import { intervalsSvg, type IntervalRow } from '../../src/report/intervals.js';
import { bootstrapSeed, type PolicyRow, type SettingResult } from './run.js';
import { pairedDiff, verdictOf } from './stats.js';

const pct = (v: number) => `${v >= 0 ? '+' : ''}${(v * 100).toFixed(1)}%`;

/** A number for tables: 4 significant digits, exponent form when large or tiny. */
export function fmtMetric(v: number): string {
  if (!Number.isFinite(v)) return String(v);
  if (v !== 0 && (Math.abs(v) >= 1e6 || Math.abs(v) < 1e-3)) return v.toExponential(3);
  return v.toPrecision(Math.abs(v) >= 1000 ? Math.ceil(Math.log10(Math.abs(v) + 1)) : 4);
}

/** One line naming the setting, its metric, direction, episodes and best heuristic. */
export function settingHeadline(r: SettingResult): string {
  const best = r.policies.find((p) => p.name === r.best_heuristic)!;
  return (
    `${r.name} (${r.env_id}): ${r.metric}, ${r.lower_is_better ? 'lower' : 'higher'} is better; ${r.episode_seeds.length} episodes; ` +
    `best heuristic ${best.name} ${fmtMetric(best.mean)} (of ${r.policies.filter((p) => p.kind === 'heuristic').length})`
  );
}

/** The rows in display order: learned, references, then heuristics best first. */
function ordered(r: SettingResult): PolicyRow[] {
  const sign = r.lower_is_better ? 1 : -1;
  const h = r.policies.filter((p) => p.kind === 'heuristic').sort((a, b) => sign * (a.mean - b.mean));
  return [...r.policies.filter((p) => p.kind === 'learned'), ...r.policies.filter((p) => p.kind === 'reference'), ...h];
}

/** The table of a setting (at most `maxHeuristics` heuristics shown; `hidden` counts the others). */
export function settingTable(r: SettingResult, maxHeuristics = Infinity): { header: string[]; rows: string[][]; hidden: number } {
  const all = ordered(r);
  let shownH = 0;
  let hidden = 0;
  const rows: string[][] = [];
  for (const p of all) {
    if (p.kind === 'heuristic' && shownH++ >= maxHeuristics) {
      hidden++;
      continue;
    }
    const l = r.learned.find((x) => x.name === p.name);
    rows.push([
      p.name + (p.name === r.best_heuristic ? ' (best)' : '') + (p.complete ? '' : ' (incomplete)'),
      p.kind,
      fmtMetric(p.mean),
      l ? `${pct(l.diff.mean)} [${pct(l.diff.ci95[0])}, ${pct(l.diff.ci95[1])}]` : '',
      l ? l.verdict : p.kind === 'reference' ? `(reference, ${p.seconds.toFixed(1)} s)` : '',
    ]);
  }
  return { header: ['policy', 'kind', `mean ${r.metric}`, 'vs best heuristic (95% CI)', 'verdict'], rows, hidden };
}

/** The markdown page: one section and table per setting. */
export function leaderboardMarkdown(doc: { seed: number; settings: readonly SettingResult[] }): string {
  let s = `# clustergym leaderboard, seed ${doc.seed}\n\n`;
  s += "Differences are paired by episode, relative to the best heuristic's mean, with 95 % bootstrap intervals (docs/leaderboard.md).\n";
  for (const r of doc.settings) {
    s += `\n## ${r.name}\n\n${r.description}.\n\nHeuristics: ${r.why}.\n\n${settingHeadline(r)}\n\n`;
    const t = settingTable(r);
    s += `| ${t.header.join(' | ')} |\n|${t.header.map(() => '---').join('|')}|\n`;
    for (const row of t.rows) s += `| ${row.join(' | ')} |\n`;
    s += `\n![${r.name}](${r.name}.svg)\n`;
  }
  return s;
}

/** Colours of the kinds in the SVG. */
const KIND_COLOURS = { learned: '#d62728', reference: '#2ca02c', heuristic: '#1f77b4' } as const;

/**
 * The SVG of a setting: every learned and reference row and the best `maxHeuristics` heuristics,
 * each as its paired difference to the best heuristic with its 95 % bootstrap interval.
 */
export function settingSvg(r: SettingResult, seed: number, maxHeuristics = 12): string {
  const best = r.policies.find((p) => p.name === r.best_heuristic)!;
  let shownH = 0;
  const rows: IntervalRow[] = [];
  for (const p of ordered(r)) {
    if (p.kind === 'heuristic' && shownH++ >= maxHeuristics) continue;
    const d = p === best ? { mean: 0, ci95: [0, 0] as [number, number] } : pairedDiff(p.per_episode, best.per_episode, bootstrapSeed(seed, r.name, p.name));
    const v = verdictOf(d.ci95, r.lower_is_better);
    rows.push({
      name: `${p.name}${p.kind === 'heuristic' ? '' : ` (${p.kind}${p.kind === 'learned' ? `, ${v}` : ''})`}`,
      value: d.mean,
      lo: d.ci95[0],
      hi: d.ci95[1],
      colour: KIND_COLOURS[p.kind],
      bold: p.kind !== 'heuristic' || p === best,
    });
  }
  return intervalsSvg(rows, {
    title: `${r.name}: ${r.metric} relative to the best heuristic (${best.name})`,
    subtitle: `${r.episode_seeds.length} episodes, seed ${seed}; ${r.lower_is_better ? 'lower' : 'higher'} is better; 95 % paired bootstrap intervals`,
    axisLabel: `difference to ${best.name}'s mean ${r.metric}`,
    percent: true,
    idPrefix: `lb-${r.name}`,
  });
}
