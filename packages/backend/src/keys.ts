// The one module that knows Fleet's key names (../shared/spec/README.md, "Key layout").

export const WORKER_ALL_INDEX = "wkrs:all";
export const CATALOG_HASH = "fleet:catalog";
export const AUDIT_LIST = "fleet:console:audit";

/** An audit entry's id as the console makes them (16 lowercase hex digits); anything else throws. */
export function auditEntryId(id: string): string {
  if (!/^[0-9a-f]{16}$/.test(id)) throw new TypeError(`not an audit entry id: ${JSON.stringify(id.slice(0, 40))}`);
  return id;
}

/**
 * The console's own keys, all under `fleet:console:` (Fleet itself never reads them):
 * sessions, the per-user index of sessions, sign-in throttling counters and the audit
 * trail's refusal counters. Ids are made by the console (digests, addresses, user names
 * of the configuration), never raw client input.
 */
export const consoleKeys = {
  /** string, the session record (JSON); TTL = the session's remaining lifetime. */
  session: (id: string) => `fleet:console:session:${id}`,
  /** zset of a user's session ids, score = expiry (unix ms); TTL = the longest session. */
  userSessions: (user: string) => `fleet:console:user-sessions:${user}`,
  /** hash {n, until}: failed sign-ins of one user name from one address. */
  signInPair: (id: string) => `fleet:console:signin:pair:${id}`,
  /** hash {n, until}: failed sign-ins from one address, whatever the user name. */
  signInAddress: (id: string) => `fleet:console:signin:addr:${id}`,
  /** hash {n, start}: refusals of one actor recorded in the current minute. */
  auditRefusals: (actor: string) => `fleet:console:audit:refusals:${actor}`,
  /**
   * list of JSON `{worker_id, before, after}`, in the entry's order: every worker's change of
   * one fleet-wide config write whose audit entry (`id`, 16 hex digits) keeps only the first
   * 100; TTL AUDIT_CHANGES_TTL_SECONDS (apps/web).
   */
  auditChanges: (id: string) => `fleet:console:audit:changes:${auditEntryId(id)}`,
  // ---- the watch (issue 15; apps/web/src/server/history and .../alerts say what the bytes are)
  /**
   * string, a ring of fixed-size history records of one queue (`series` its name) or of the
   * whole fleet (`series` null); TTL renewed on every write, so a queue gone for the ring's
   * span leaves nothing behind.
   */
  history: (tier: "10s" | "5m", series: string | null) => (series === null ? `fleet:console:history:fleet:${tier}` : `fleet:console:history:${tier}:${series}`),
  /** hash queue -> JSON of its latest watch figures (counters for /metrics, oldest pending age). */
  historyLatest: "fleet:console:history:latest",
  /** hash {doc, gen}: the alert rules and webhooks (JSON) and their generation. */
  alertRules: "fleet:console:alerts:rules",
  /** hash instance key -> JSON: alerts firing now. */
  alertFiring: "fleet:console:alerts:firing",
  /** hash delivery id -> JSON: webhook deliveries waiting or being retried. */
  alertOutbox: "fleet:console:alerts:outbox",
  /** list, newest first, capped: alerts fired and resolved, deliveries done and failed. */
  alertHistory: "fleet:console:alerts:history",
  // ---- worker error history (issue 19.6; apps/web/src/server/watch/worker-errors.ts)
  /**
   * list, newest first, capped: what the watch saw of one worker's errors and state changes
   * (JSON entries); TTL renewed on every write, so a worker gone for that long leaves nothing.
   * `|` joins type and id as `wkrs:all` does (a type cannot hold one).
   */
  workerErrors: (automationType: string, workerId: string) => `fleet:console:worker-errors:${automationType}|${workerId}`,
  // ---- bulk actions on a search's matches (issue 14.2; apps/web/src/server/bulk)
  /** hash: one bulk job's spec (`doc`, JSON), state, owner (lock token), part, cursor and counts. */
  bulkJob: (id: string) => `fleet:console:bulk:job:${id}`,
  /** zset job id -> creation (unix ms): the jobs, newest last; capped. */
  bulkJobs: "fleet:console:bulk:jobs",
  // ---- pool deletion in chunks (issue 19.8; src/redis/pools.ts)
  /**
   * hash, a deleted pool's items (the pool hash renamed here in one step, so the pool is gone
   * for Fleet at once) while their claim keys are removed in chunks; removed when done.
   */
  poolDeleting: (id: string) => `fleet:console:pool-delete:${id}`,
  /** hash poolDeleting key -> pool name: deletions begun and not finished (a process died midway); the next pool deletion finishes them. */
  poolDeletes: "fleet:console:pool-deletes",
} as const;

/** Pools read whole for their counts up to this many items; bigger ones are sampled (PoolSummary.estimated). */
export const POOL_EXACT_UP_TO = 5000;
/** Items a big pool's counts are estimated from (HRANDFIELD ... WITHVALUES: O(sample), whatever the pool's size). */
export const POOL_SAMPLE = 1000;

/** A refusal counter outlives its window by this much, so a later window can report what was not listed. */
export const REFUSAL_COUNTER_KEEP_MS = 24 * 3600 * 1000;

export const WORKER_FIELDS = ["hardware", "config", "gen", "state", "stats", "stats:history"] as const;
export type WorkerField = (typeof WORKER_FIELDS)[number];

export const QUEUE_SUFFIXES = ["high", "low", "processing", "processing:body", "scheduled", "dead"] as const;
export type QueueSuffix = (typeof QUEUE_SUFFIXES)[number];

export const keys = {
  kv: (ns: string, key: string) => `fleet:kv:${ns}:${key}`,
  pool: (name: string) => `fleet:pool:${name}`,
  poolClaim: (name: string, id: string) => `fleet:pool:${name}:claim:${id}`,
  poolClaimPrefix: (name: string) => `fleet:pool:${name}:claim:`,
  lock: (name: string) => `fleet:lock:${name}`,
  counter: (name: string) => `fleet:counter:${name}`,
  queue: (name: string) => `fleet:queue:${name}`,
  queueHigh: (name: string) => `fleet:queue:${name}:high`,
  queueLow: (name: string) => `fleet:queue:${name}:low`,
  queueProcessing: (name: string) => `fleet:queue:${name}:processing`,
  queueProcessingBody: (name: string) => `fleet:queue:${name}:processing:body`,
  queueScheduled: (name: string) => `fleet:queue:${name}:scheduled`,
  queueDead: (name: string) => `fleet:queue:${name}:dead`,
  stream: (name: string) => `stream:${name}`,
  event: (topic: string) => `event:${topic}`,
  worker: (type: string, id: string, field: WorkerField) => `wkr:${type}:${id}:${field}`,
  workerTypeIndex: (type: string) => `wkrs:${type}`,
  workerAllMember: (type: string, id: string) => `${type}|${id}`,
} as const;

/** Pending lists in reserve order: high, then normal, then low. */
export function queuePriorityKeys(name: string): [string, string, string] {
  return [keys.queueHigh(name), keys.queue(name), keys.queueLow(name)];
}

export type Priority = "high" | "normal" | "low";

/** Python's `priority: int`: > 0 is high, < 0 is low. */
export function priorityFromInt(p: number): Priority {
  return p > 0 ? "high" : p < 0 ? "low" : "normal";
}

export function queueKeyForPriority(name: string, priority: Priority): string {
  return priority === "high" ? keys.queueHigh(name) : priority === "low" ? keys.queueLow(name) : keys.queue(name);
}

/** `"<type>|<wid>"` split at the first `|`, as Python's str.partition does. */
export function parseWorkerAllMember(member: string): { automationType: string; workerId: string } | null {
  const i = member.indexOf("|");
  if (i < 0 || i === member.length - 1) return null;
  return { automationType: member.slice(0, i), workerId: member.slice(i + 1) };
}

/**
 * Which queue a `fleet:queue:*` key belongs to. A key with a known suffix belongs to the
 * queue before it; anything else is a normal pending list whose name may itself contain `:`.
 */
export function queueNameOfKey(key: string): string | null {
  if (!key.startsWith("fleet:queue:")) return null;
  const rest = key.slice("fleet:queue:".length);
  // longest suffix first so ":processing:body" is not read as ":body" of queue "x:processing"
  for (const suffix of ["processing:body", "processing", "scheduled", "high", "low", "dead"]) {
    if (rest.endsWith(`:${suffix}`) && rest.length > suffix.length + 1) return rest.slice(0, -(suffix.length + 1));
  }
  return rest.length > 0 ? rest : null;
}

/** Pool name of `fleet:pool:<name>` (claim keys `fleet:pool:<name>:claim:<id>` are not pools, see poolNameProblem). */
export function poolNameOfKey(key: string): string | null {
  if (!key.startsWith("fleet:pool:")) return null;
  const rest = key.slice("fleet:pool:".length);
  // `<name>:claim:<id>` is a claim key; so is `<name>:claim:` + an id that starts with `claim:`
  if (rest.includes(":claim:") || rest.endsWith(":claim")) return null;
  return rest.length > 0 ? rest : null;
}

/** kv keys `fleet:kv:<ns>:<key>`: the namespace runs to the first `:`. */
export function kvPartsOfKey(key: string): { ns: string; key: string } | null {
  if (!key.startsWith("fleet:kv:")) return null;
  const rest = key.slice("fleet:kv:".length);
  const i = rest.indexOf(":");
  if (i <= 0) return null;
  return { ns: rest.slice(0, i), key: rest.slice(i + 1) };
}

// ---- names that would build another structure's keys
//
// Fleet's keys are names joined with `:`, and names may contain `:` (../shared/API.md). A
// name is refused where the keys it builds belong to something else by the ownership rules
// above (`queueNameOfKey`, `poolNameOfKey`) or to a fixed key (`wkrs:all`). Each function
// answers null for a usable name, else a sentence saying why, for an error message.
// Streams (`stream:<name>`), locks (`fleet:lock:<name>`) and counters (`fleet:counter:<name>`)
// build one key with a prefix of their own and no suffix: every name is usable. A kv
// namespace ends at the first `:` of the key (`kvPartsOfKey`), so it cannot hold one.

/** Why `name` cannot be a queue: its keys would be another queue's high, dead... list. */
export function queueNameProblem(name: string): string | null {
  if (name === "") return "a queue name cannot be empty";
  const owner = queueNameOfKey(keys.queue(name));
  if (owner === name) return null;
  const what = name.slice(owner!.length + 1);
  return `'${name}' cannot be a queue: fleet:queue:${name} is the ${QUEUE_SUFFIX_ROLE[what as QueueSuffix]} of queue '${owner}'`;
}

const QUEUE_SUFFIX_ROLE: Record<QueueSuffix, string> = {
  high: "high-priority pending list",
  low: "low-priority pending list",
  processing: "reservation set",
  "processing:body": "reserved-body hash",
  scheduled: "scheduled set",
  dead: "dead-letter list",
};

/** Why `name` cannot be a pool: its hash or its claim keys would be another pool's claim keys. */
export function poolNameProblem(name: string): string | null {
  if (name === "") return "a pool name cannot be empty";
  const i = name.indexOf(":claim:");
  if (i >= 0) return `'${name}' cannot be a pool: fleet:pool:${name} is a claim key of pool '${name.slice(0, i)}'`;
  if (name.endsWith(":claim")) {
    return `'${name}' cannot be a pool: its claim keys fleet:pool:${name}:<id> are claim keys of pool '${name.slice(0, -":claim".length)}'`;
  }
  return null;
}

/** Why `type` cannot be an automation type (a worker type): its index would be another key. */
export function automationTypeProblem(type: string): string | null {
  if (type === "") return "an automation type cannot be empty";
  if (type === "all") return "'all' cannot be an automation type: its worker index wkrs:all is the index of every worker";
  if (type.includes("|")) return `'${type}' cannot be an automation type: wkrs:all holds <type>|<id> and reads the type up to the first '|'`;
  return null;
}

/**
 * The other workers whose keys `wkr:<type>:<id>:…` are the same as this one's: `a:b`/`c`
 * and `a`/`b:c` build the very same keys. Whether one of them exists is the caller's to ask.
 */
export function workerKeyTwins(automationType: string, workerId: string): Array<{ automationType: string; workerId: string }> {
  const joined = `${automationType}:${workerId}`;
  const out: Array<{ automationType: string; workerId: string }> = [];
  for (let i = joined.indexOf(":"); i >= 0; i = joined.indexOf(":", i + 1)) {
    const t = joined.slice(0, i);
    const w = joined.slice(i + 1);
    if (t === automationType || t === "" || w === "") continue;
    out.push({ automationType: t, workerId: w });
  }
  return out;
}

// ---- name discovery (src/discovery)

/** What the console lists by name, found by walking the key space. */
export type NameKind = "queue" | "pool" | "stream" | "lock" | "counter" | "kv";

/**
 * The one SCAN MATCH pattern of the discovery walk: it lets through `fleet:*` and
 * `stream:*` (and the odd foreign key such as `slrat...`, dropped by `nameOfKey`), so
 * Redis filters out a foreign key at its first character instead of sending it.
 */
export const DISCOVERY_SCAN_MATCH = "[fs][lt][er][ea][ta]*";

/** Key prefixes of everything the discovery finds (none is a prefix of another). */
export const DISCOVERY_PREFIXES = ["fleet:queue:", "fleet:pool:", "fleet:lock:", "fleet:counter:", "fleet:kv:", "stream:"] as const;

/** The name a key belongs to, for the kinds the console lists; null for every other key. */
export function nameOfKey(key: string): { kind: NameKind; name: string; key?: string } | null {
  if (key.startsWith("stream:")) {
    const name = key.slice("stream:".length);
    return name.length > 0 ? { kind: "stream", name } : null;
  }
  if (!key.startsWith("fleet:")) return null;
  if (key.startsWith("fleet:queue:")) {
    const name = queueNameOfKey(key);
    return name === null ? null : { kind: "queue", name };
  }
  if (key.startsWith("fleet:pool:")) {
    const name = poolNameOfKey(key);
    return name === null ? null : { kind: "pool", name };
  }
  if (key.startsWith("fleet:kv:")) {
    const parts = kvPartsOfKey(key);
    return parts === null ? null : { kind: "kv", name: parts.ns, key: parts.key };
  }
  for (const kind of ["lock", "counter"] as const) {
    const prefix = `fleet:${kind}:`;
    if (key.startsWith(prefix) && key.length > prefix.length) return { kind, name: key.slice(prefix.length) };
  }
  return null;
}
