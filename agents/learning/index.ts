/**
 * Learned policies in tfjs (DESIGN §7): a masked actor-critic whose actor is one small "kernel" MLP
 * scoring each valid job (Job-v0) or job-node pair (JobNode-v0), trained by PPO (GAE, clipped
 * objective, entropy bonus), by evolution strategies (the linear policy, and the flat-observation
 * envs' policies) or by imitation of a lookahead teacher (DAgger on env clones) then ES fine-tuning;
 * saved as a model directory with a card naming its method, and evaluated against the heuristics
 * on held-out episodes. See docs/agents.md.
 *
 * - `config.ts`: the one training configuration (zod); `parsePpoConfig`, `loadPpoConfig`.
 * - `backend.ts`: tfjs backend selection (tfjs-node, wasm, cpu); `selectBackend`.
 * - `features.ts`: observations and masks -> candidate rows and pooled features; the masked policy.
 * - `network.ts`: the actor-critic model; `PolicyNetwork`.
 * - `io.ts`: model directories through a custom IO handler; `saveModelDir`, `loadModelDir`.
 * - `train.ts`: the training loop, read top to bottom; `train`.
 * - `rollout.ts`: rollout storage and collection, reward normalisation, GAE; `RunningMeanStd`.
 * - `update.ts`: the PPO update (minibatch gradient steps, learning rate); `minibatchStep`.
 * - `checkpoint.ts`: checkpoints written and resumed; `resolveCheckpoint`, `checkpointConfig`, `runDirOf`.
 * - `evaluate.ts`: held-out evaluation against the heuristics and the report.
 * - `es.ts`: the evolution-strategies step; `evolve.ts`: ES of the linear policy; `flat.ts`: ES of the flat-observation envs' policies.
 * - `imitation.ts`, `teacher.ts`: DAgger on a lookahead teacher, then ES fine-tuning; `jsPolicy.ts`: a network's greedy policy in JavaScript.
 * - `card.ts`: a model's method, whether it is neural, and what it observes.
 */
export * from './config.js';
export * from './backend.js';
export * from './features.js';
export * from './network.js';
export * from './io.js';
export * from './train.js';
export { RunningMeanStd } from './rollout.js';
export { minibatchStep, type Rollout, type StepStats } from './update.js';
export { checkpointConfig, resolveCheckpoint, runDirOf } from './checkpoint.js';
export * from './evaluate.js';
export * from './baseline.js';
export * from './warmStart.js';
export { trainEs } from './evolve.js';
export { trainModel } from './trainModel.js';
export { trainImitation } from './imitation.js';
export { JsPolicy } from './jsPolicy.js';
export { cardIdentity, flatIdentity, modelIdentity, type ModelIdentity } from './card.js';
