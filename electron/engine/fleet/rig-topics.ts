// What the panel reads from a rig's snapshots, and nothing more: each topic is checked against a loose
// schema of just the fields the Fleet row uses, so a rig that sends a malformed snapshot has it refused
// (counted on its row) instead of turning into NaN on the page or an exception in the engine.
import * as v from 'valibot';

const num = v.pipe(v.number(), v.finite());
const nnum = v.nullable(num);
const latency = v.looseObject({ p99: nnum });

const minerSchema = v.looseObject({
  phase: v.string(),
  stats: v.looseObject({
    windowMs: num,
    ok: num,
    errors: num,
    acceptanceRate: nnum,
    ttftMs: latency,
    tpotMs: latency,
    tokensPerSecond: num,
    inflight: num,
  }),
  targets: v.looseObject({ ttftP99Ms: num, tpotP99Ms: num, acceptance: num }),
});

const tauTotal = v.looseObject({ projectedTao: num, realisedTao: num });

export const RIG_TOPIC_SCHEMAS = {
  settings: v.looseObject({ role: v.nullable(v.string()) }),
  miners: v.pipe(v.array(minerSchema), v.maxLength(64)),
  validator: v.nullable(v.looseObject({ status: v.string() })),
  hardware: v.nullable(v.looseObject({ gpus: v.pipe(v.array(v.looseObject({ name: v.pipe(v.string(), v.maxLength(200)), temperatureC: nnum })), v.maxLength(64)) })),
  serve: v.nullable(
    v.looseObject({ gpus: v.pipe(v.array(v.looseObject({ index: num, name: v.pipe(v.string(), v.maxLength(200)), points: v.array(v.looseObject({ temperatureC: nnum })) })), v.maxLength(64)) }),
  ),
  earnings: v.looseObject({
    // Absent from rigs older than the shared-hotkey count: such a rig's τ counts on its own.
    hotkey: v.optional(v.nullable(v.pipe(v.string(), v.minLength(1), v.maxLength(128)))),
    epochs: v.array(v.looseObject({ epochIndex: num, projectedTao: nnum })),
    registration: v.nullable(v.looseObject({ uid: nnum })),
    onChain: v.nullable(v.looseObject({ uid: num })),
    totals: v.looseObject({ day: tauTotal, week: tauTotal }),
  }),
  notifications: v.looseObject({
    webhook: v.optional(v.looseObject({ configured: v.boolean() })),
    recent: v.array(
      v.looseObject({ id: num, active: v.boolean(), severity: v.string(), title: v.pipe(v.string(), v.maxLength(500)), body: v.pipe(v.string(), v.maxLength(4000)), at: num, kind: v.string() }),
    ),
  }),
} as const;

export type RigTopic = keyof typeof RIG_TOPIC_SCHEMAS;
export type RigTopics = { [K in RigTopic]?: v.InferOutput<(typeof RIG_TOPIC_SCHEMAS)[K]> };

export function isRigTopic(t: unknown): t is RigTopic {
  return typeof t === 'string' && Object.hasOwn(RIG_TOPIC_SCHEMAS, t);
}

/** The parsed snapshot (which may itself be null: "no serve yet"), or ok:false when it does not have the shape the row reads. */
export function parseRigTopic<K extends RigTopic>(topic: K, data: unknown): { ok: true; value: RigTopics[K] } | { ok: false } {
  const r = v.safeParse(RIG_TOPIC_SCHEMAS[topic], data);
  return r.success ? { ok: true, value: r.output as RigTopics[K] } : { ok: false };
}

/** An alert as read from a rig (only the checked fields are relied on). */
export type RigNotification = NonNullable<RigTopics['notifications']>['recent'][number];

/** Where a refused snapshot went wrong (`miners.0.stats.ok: Invalid type`), for the log; never its values. */
export function rigTopicIssue(topic: RigTopic, data: unknown): string {
  const r = v.safeParse(RIG_TOPIC_SCHEMAS[topic], data);
  if (r.success) return 'no issue';
  const i = r.issues[0];
  return `${v.getDotPath(i) ?? '(root)'}: expected ${i.expected ?? 'another shape'}`;
}
