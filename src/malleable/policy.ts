/** The reconfiguration policies live with the scheduling passes (`src/scheduling/resizePolicy.ts`); re-exported here. */
export * from '../scheduling/resizePolicy.js';
