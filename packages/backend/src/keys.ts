// The one module that knows Fleet's key names (../shared/spec/README.md, "Key layout").

export const WORKER_ALL_INDEX = "wkrs:all";
export const CATALOG_HASH = "fleet:catalog";
export const AUDIT_LIST = "fleet:console:audit";

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

/** Pool name of `fleet:pool:<name>` (claim keys `fleet:pool:<name>:claim:<id>` are not pools). */
export function poolNameOfKey(key: string): string | null {
  if (!key.startsWith("fleet:pool:")) return null;
  const rest = key.slice("fleet:pool:".length);
  if (rest.includes(":claim:")) return null;
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
