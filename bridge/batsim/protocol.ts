/**
 * The messages of Batsim's JSON protocol (the version pybatsim 3.x speaks, Batsim 3 and 4): zod
 * schemas of what a scheduler may send, and the error Batsim reports when a message breaks them.
 *
 * A message is `{"now": T, "events": [{"timestamp": t, "type": TYPE, "data": {...}}, ...]}`; the
 * timestamps must not decrease and must not exceed `now`. docs/batsim.md lists every event.
 */
import { z } from 'zod';

/** A protocol violation or an impossible decision: Batsim aborts the simulation with this message. */
export class BatsimProtocolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BatsimProtocolError';
  }
}

const time = z.number().finite();

/** One event sent by the scheduler (its `data` is checked by type, see `DATA_SCHEMAS`). */
export const EventSchema = z
  .object({
    timestamp: time,
    type: z.string(),
    data: z.record(z.unknown()).optional(),
  })
  .passthrough();

/** A message sent by the scheduler. */
export const MessageSchema = z.object({ now: time, events: z.array(z.unknown()) }).passthrough();

/** Event types a scheduler may send, with the schema of their `data`. */
export const DATA_SCHEMAS = {
  EXECUTE_JOB: z
    .object({
      job_id: z.string(),
      alloc: z.string(),
      mapping: z.record(z.union([z.string(), z.number()])).optional(),
      storage_mapping: z.record(z.number()).optional(),
      additional_io_job: z.unknown().optional(),
    })
    .strict(),
  REJECT_JOB: z.object({ job_id: z.string() }).strict(),
  KILL_JOB: z.object({ job_ids: z.array(z.string()).min(1) }).strict(),
  CALL_ME_LATER: z.object({ timestamp: time }).strict(),
  SET_RESOURCE_STATE: z.object({ resources: z.string(), state: z.string() }).strict(),
  QUERY: z.object({ requests: z.record(z.unknown()) }).strict(),
  NOTIFY: z.object({ type: z.string() }).passthrough(),
  SET_JOB_METADATA: z.object({ job_id: z.string(), metadata: z.string() }).strict(),
  REGISTER_JOB: z.object({ job_id: z.string(), job: z.record(z.unknown()).optional() }).strict(),
  REGISTER_PROFILE: z.object({ workload_name: z.string(), profile_name: z.string(), profile: z.record(z.unknown()) }).strict(),
  CHANGE_JOB_STATE: z.object({ job_id: z.string(), job_state: z.string(), kill_reason: z.string().optional() }).strict(),
  ANSWER: z.record(z.unknown()),
} as const;

/** The event types a scheduler may send. */
export type SchedulerEventType = keyof typeof DATA_SCHEMAS;

/** Event types of Batsim's protocol that clustergym does not carry out (an error names them). */
export const UNSUPPORTED_EVENTS: Readonly<Record<string, string>> = {
  TO_JOB_MSG: 'messages to jobs need send/recv profiles, which clustergym does not model',
  RESOURCES_ADDED: 'adding resources during a run is not supported',
  RESOURCES_REMOVED: 'removing resources during a run is not supported',
};

/** An event of a message sent to the scheduler. */
export interface OutEvent {
  timestamp: number;
  type: string;
  data: Record<string, unknown>;
}

/** The zod issues of `data` as one line. */
export function issuesText(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.length ? `'${i.path.join('.')}': ` : ''}${i.message}`).join('; ');
}
