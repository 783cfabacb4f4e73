/**
 * The layering of DESIGN §1, enforced by `npm run lint` (dependency-cruiser). Lower layers never import
 * higher ones:
 *
 *   src/core  <-  src/platform, src/workload  <-  src/execution  <-  src/metrics  <-  src/scheduling
 *   (src/report: plots, depends on nothing of the simulator)  <-  envs  <-  agents  <-  bridge, cli
 *
 * A system of its own under src/ (malleable jobs, time sharing, ...) sits above src/execution like
 * src/scheduling and below envs. bench/ measures through the public modules, never through cli/.
 */
const LAYER_ABOVE = {
  core: '^(src/(platform|workload|execution|metrics|scheduling|report|malleable|timesharing|fairness|slurm)|envs|agents|bridge|cli|bench|tools)/',
  platform: '^(src/(workload|execution|metrics|scheduling|report|malleable|timesharing|fairness|slurm)|envs|agents|bridge|cli|bench|tools)/',
  workload: '^(src/(platform|execution|metrics|scheduling|report|malleable|timesharing|fairness|slurm)|envs|agents|bridge|cli|bench|tools)/',
  execution: '^(src/(metrics|scheduling|report|malleable|timesharing|fairness|slurm)|envs|agents|bridge|cli|bench|tools)/',
  metrics: '^(src/(scheduling|report|malleable|timesharing|fairness|slurm)|envs|agents|bridge|cli|bench|tools)/',
};

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    ...Object.entries(LAYER_ABOVE).map(([layer, above]) => ({
      name: `${layer}-imports-upward`,
      comment: `src/${layer} is below ${above}: it may not import from there (DESIGN §1)`,
      severity: 'error',
      from: { path: `^src/${layer}/` },
      to: { path: above },
    })),
    {
      name: 'simulator-imports-rl-or-transport',
      comment: 'the simulator (src/) knows nothing of the environments, the agents, the bridge or the CLI',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(envs|agents|bridge|cli|bench|tools)/' },
    },
    {
      name: 'envs-imports-upward',
      comment: 'envs know nothing of the agents, ZeroMQ (bridge) or the CLI',
      severity: 'error',
      from: { path: '^envs/' },
      to: { path: '^(agents|bridge|cli|bench|tools)/' },
    },
    {
      name: 'agents-imports-upward',
      comment: 'agents act through the environment API; they know nothing of the bridge or the CLI',
      severity: 'error',
      from: { path: '^agents/' },
      to: { path: '^(bridge|cli|bench|tools)/' },
    },
    {
      name: 'bridge-imports-cli',
      comment: 'the bridge maps messages to env calls; the CLI sits beside it, not below',
      severity: 'error',
      from: { path: '^bridge/' },
      to: { path: '^(cli|bench)/' },
    },
    {
      name: 'bench-imports-cli',
      comment: 'benchmarks measure through the public modules, not the command line',
      severity: 'error',
      from: { path: '^bench/' },
      to: { path: '^cli/' },
    },
    {
      name: 'no-circular',
      comment: 'modules do not import each other in a circle (type-only imports excepted)',
      severity: 'error',
      from: {},
      to: { circular: true, dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|node_modules)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'], extensions: ['.ts', '.js'] },
  },
};
