/**
 * Findings of a reproduced experiment (`clustergym reproduce NAME`): each published claim next to
 * what this run measured, and whether the claim holds on this run.
 *
 * A finding states a claim of the source document in a form a run can check (a direction, an
 * ordering, a neighbourhood of a published figure), the published figure or statement (`paper`),
 * the measured figure (`measured`, as text a reader compares with `paper`) and `holds`. Every
 * reproduce command returns a `ReproduceReport`; the CLI prints its findings as a table (or the
 * report as JSON with `--json`) and exits 1 when a finding does not hold, so that a run on an
 * unseen seed is checked by its exit code.
 */

/** One published claim checked on a run. */
export interface Finding {
  /** A short stable key (`wait-reduction-400`). */
  id: string;
  /** The claim, as the document makes it, in one sentence. */
  claim: string;
  /** The published figure or statement, with where it is (`Table 4: -57% to -67%`). */
  paper: string;
  /** What this run measured, in the units of `paper`. */
  measured: string;
  /** Whether the claim holds on this run. */
  holds: boolean;
}

/** What a reproduce command returns (and `--json` prints). */
export interface ReproduceReport {
  /** The experiment's name (`dmr`, `cosched`, `fairness`, `raijin`). */
  name: string;
  /** The source document (`../shared/seeds/002_....txt`) and the sections reproduced. */
  source: string;
  /** The seed of the run. */
  seed: number;
  /** The parameters of the run (sizes, sweeps), as given or defaulted. */
  parameters: Record<string, unknown>;
  /** The reproduced tables: name -> rows (objects with the same keys). */
  tables: Record<string, Record<string, number | string>[]>;
  /** The published claims checked on this run. */
  findings: Finding[];
  /** Wall time of the run (s). */
  seconds: number;
}

/** The findings that do not hold. */
export function failedFindings(report: ReproduceReport): Finding[] {
  return report.findings.filter((f) => !f.holds);
}

/** A finding from a measured value and a check: `measured` is `format(value)`. */
export function finding(id: string, claim: string, paper: string, value: number, holds: (v: number) => boolean, format: (v: number) => string): Finding {
  return { id, claim, paper, measured: format(value), holds: Number.isFinite(value) && holds(value) };
}

/** `+12.3%` / `-45.0%`: a relative change `after / before - 1` as a signed percentage. */
export function percentChange(before: number, after: number): number {
  return (after / before - 1) * 100;
}

/** A signed percentage with one decimal (`-57.3%`). */
export function formatPercent(v: number): string {
  return `${v >= 0 ? '+' : ''}${v.toFixed(1)}%`;
}
