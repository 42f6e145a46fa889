// A bus message for people: what it says, in a line, and a link to what it is about. Fleet's
// own topics are read by their known shapes (`<type>.emit` carries the stream entry's score,
// a bare unix time; `fleet.config` a worker's new generation; `fleet.admin` what the console
// did: their @fleet/schema schemas; `fleet.bulk` a bulk job's progress); any other payload is
// shown as its members, times as clock times. Text only.
import { AdminMessageSchema, ConfigChangedMessageSchema } from "@fleet/schema";

import { auditSentence, type AuditEntryLike } from "./audit-sentence";
import { clockTime } from "./format";

export interface BusSummary {
  text: string;
  link: { href: string; label: string } | null;
}

const enc = encodeURIComponent;
const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);

/** A number that reads as a unix time of the last ~50 years or the next few (seconds, or ms). */
export function asUnixTime(v: unknown): number | null {
  const n = typeof v === "number" ? v : typeof v === "string" && /^\d{9,13}(\.\d+)?$/.test(v.trim()) ? Number(v) : NaN;
  if (!Number.isFinite(n)) return null;
  const s = n > 1e12 ? n / 1000 : n;
  return s > 1e9 && s < 4.2e9 ? s : null;
}

const TIME_KEY = /^(ts|score|time|at|timestamp)$|_(at|ts|time)$/;

function member(k: string, v: unknown): string {
  if (TIME_KEY.test(k)) {
    const t = asUnixTime(v);
    if (t !== null) return `${k} ${clockTime(t)}`;
  }
  const s = typeof v === "string" ? v : (JSON.stringify(v) ?? String(v));
  return `${k} ${s.length > 60 ? `${s.slice(0, 59)}…` : s}`;
}

/** The members of a payload as "key value" pairs, times as clock times; a few, then "+N more". */
export function membersText(payload: Record<string, unknown>, max = 5): string {
  const entries = Object.entries(payload);
  const shown = entries.slice(0, max).map(([k, v]) => member(k, v));
  return entries.length > max ? `${shown.join(" · ")} · +${entries.length - max} more` : shown.join(" · ");
}

/** A fleet.admin payload as the audit entry it mirrors: its target rebuilt from its fields. */
function adminTarget(p: Record<string, unknown>): { target: string | null; link: BusSummary["link"] } {
  const type = str(p.automation_type);
  const worker = str(p.worker_id);
  if (type && worker) return { target: `worker:${type}/${worker}`, link: { href: `/workers/${enc(type)}/${enc(worker)}`, label: `worker ${worker}` } };
  const queue = str(p.queue);
  if (queue) return { target: `queue:${queue}`, link: { href: `/queues/${enc(queue)}`, label: `queue ${queue}` } };
  const pool = str(p.pool);
  if (pool) {
    const item = str(p.item_id);
    return { target: item ? `pool:${pool}/${item}` : `pool:${pool}`, link: { href: `/pools/${enc(pool)}`, label: `pool ${pool}` } };
  }
  if (str(p.counter)) return { target: `counter:${p.counter as string}`, link: { href: "/state", label: "state" } };
  if (str(p.lock)) return { target: `lock:${p.lock as string}`, link: { href: "/state", label: "state" } };
  if (str(p.ns)) return { target: `kv:${p.ns as string}:${str(p.key) ?? ""}`, link: { href: `/state?ns=${enc(p.ns as string)}`, label: "state" } };
  return { target: null, link: null };
}

export function busSummary(topic: string, payload: unknown): BusSummary {
  // Fleet's own emit message is the new entry's score alone; anything else on such a topic
  // (a plugin's own payload) is summarised like any payload, still linked to the stream.
  const emitOf = topic.endsWith(".emit") ? topic.slice(0, -".emit".length) : "";
  const streamLink = emitOf ? { href: `/streams/${enc(emitOf)}`, label: `stream ${emitOf}` } : null;
  if (emitOf) {
    const t = asUnixTime(payload);
    if (t !== null) return { text: `New entry on stream ${emitOf}, written at ${clockTime(t)}`, link: streamLink };
  }
  const config = topic === "fleet.config" ? ConfigChangedMessageSchema.safeParse(payload) : null;
  if (config?.success) {
    const { automation_type: type, worker_id: worker, config_gen: gen } = config.data;
    return { text: `Config of ${worker} (${type}) saved: generation ${gen}`, link: { href: `/workers/${enc(type)}/${enc(worker)}`, label: `worker ${worker}` } };
  }
  if (topic === "fleet.bulk" && isObj(payload) && str(payload.queue) && typeof payload.done === "number") {
    // a bulk job's progress (src/server/bulk): the job as its route answers it
    const queue = payload.queue as string;
    const verb = payload.action === "requeue-dead" ? "requeued" : "deleted";
    const state = str(payload.state) ?? "running";
    const expected = typeof payload.expected === "number" ? ` of ${payload.expected} previewed` : "";
    const missing = typeof payload.missing === "number" && payload.missing > 0 ? `, ${payload.missing} gone meanwhile` : "";
    return {
      text: `Console: bulk job on ${queue} ${state}: ${verb} ${payload.done}${expected}${missing}`,
      link: { href: `/queues/${enc(queue)}`, label: `queue ${queue}` },
    };
  }
  const admin = topic === "fleet.admin" ? AdminMessageSchema.safeParse(payload) : null;
  if (admin?.success && admin.data.action !== "") {
    const { target, link } = adminTarget(admin.data);
    const entry: AuditEntryLike = { actor: null, action: admin.data.action, target, status: null, details: admin.data };
    return { text: `Console: ${auditSentence(entry)}`, link };
  }
  if (isObj(payload)) {
    const type = str(payload.automation_type);
    const worker = str(payload.worker_id);
    return {
      text: membersText(payload),
      link: type && worker ? { href: `/workers/${enc(type)}/${enc(worker)}`, label: `worker ${worker}` } : streamLink,
    };
  }
  if (typeof payload === "string") return { text: payload.length > 160 ? `${payload.slice(0, 159)}…` : payload, link: streamLink };
  const t = asUnixTime(payload);
  if (t !== null) return { text: `A time: ${clockTime(t)}`, link: streamLink };
  const s = JSON.stringify(payload) ?? String(payload);
  return { text: s.length > 160 ? `${s.slice(0, 159)}…` : s, link: streamLink };
}
