/** Fair-v0 (seed 001, multi-resource hosts and multi-user fairness): see fairEnv.ts. */
export { FAIR_ENV_ID, FairConfigSchema, type FairContext, FairEnv, type FairInfo, type FairMetrics, fairRegistration, loadFairContext } from './fairEnv.js';
