/**
 * The leaderboard (`clustergym leaderboard`, docs/leaderboard.md): every setting's heuristics at full
 * strength and its learned policies on the same held-out episodes, with paired bootstrap intervals
 * against the best heuristic.
 */
export * from './settings.js';
export * from './stats.js';
export * from './heuristics.js';
export * from './run.js';
export * from './models.js';
export * from './report.js';
export * from './export.js';
export * from './lookahead.js';
export * from './shard.js';
