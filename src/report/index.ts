/**
 * The report module (DESIGN §1, `src/report/`): SVG plots of a run and of a training session,
 * written as pure functions that return standalone SVG documents as strings (no DOM, no
 * dependencies), and the static `index.html` that shows them.
 *
 * - `learningCurveSvg`: learning curves (mean return, mean bsld…) against environment steps.
 * - `comparisonBarsSvg`: policies side by side, one bar panel per metric.
 * - `ganttSvg`: the schedule of one trajectory, cores by time, MPI jobs across nodes made visible.
 * - `utilisationSvg`: utilisation, queue length and power over time.
 * - `reportIndexHtml` / `writeReport`: the report page and the files on disk.
 *
 * Every plot is deterministic (the same input gives the same bytes), escapes all text, carries a
 * `viewBox` with `width`/`height`, and an accessible `<title>` and `<desc>`. See `docs/report.md`.
 */
export * from './svg.js';
export * from './learningCurve.js';
export * from './comparisonBars.js';
export * from './intervals.js';
export * from './gantt.js';
export * from './utilisation.js';
export * from './html.js';
export * from './findings.js';
