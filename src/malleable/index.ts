/**
 * Malleable jobs (seed 002, DMR; docs/malleability.md): the model, the workload format and generator,
 * the `dmr` policy, the DMR preset of the one engine (`dmrPreset`, `simulate`), the output writers and
 * the `reproduce dmr` experiment.
 */
export * from './model.js';
export * from './workload.js';
export * from './policy.js';
export * from './preset.js';
export * from './output.js';
export * from './experiment.js';
