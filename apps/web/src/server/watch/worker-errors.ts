// Worker error history (issue 19.6): each tick of the watch's leader reads every worker's
// state, last_seen and last_error (the light index with its last_error, 1,000 workers per
// round trip) and appends an entry to a worker's history (fleet:console:worker-errors:<type>|<id>,
// newest first, the last 50, TTL 30 days renewed on write) when what it shows changed: a new
// error, heartbeats stopping, or back to normal. Only the leader writes, so replicas never
// write duplicates; a new term (another replica, a restart) starts by reading each worker's
// newest entry, so what was recorded before is not recorded again.
//
// Entries are what the console saw at its 10 s ticks: an error that came and went between two
// ticks, or a heartbeat gap shorter than the offline threshold, is not in it.
//
// With a live-events loop running in this process, the recorder does not read the fleet at
// every tick: the loop reads every worker anyway (../events/worker-feed.ts hands over what it
// found changed), so a tick reads the fleet only when the feed's epoch is new to it, and
// otherwise only the recorded heads of workers it has not seen yet.
import type { Backend, WorkerErrorWrite, WorkerRef } from "@fleet/backend";
import { WorkerErrorEntrySchema, type Worker, type WorkerErrorEntry, type WorkerStatus } from "@fleet/schema";

import { workerStatus } from "../api/serialize";
import type { WorkersChange } from "../events/change-detector";
import type { WorkerFeedReader } from "../events/worker-feed";

export const WORKER_ERRORS_KEEP = 50;
export const WORKER_ERRORS_TTL_SECONDS = 30 * 24 * 3600;
const SLICE = 1000;

/** What a history entry records of a worker: running and idle are both "ok". */
interface Condition {
  cls: "ok" | "error" | "offline";
  error: string | null;
  /** The last_seen it was seen with (heartbeats only move it forward): how old a report is. */
  lastSeen?: number | null;
}

const classOf = (status: WorkerStatus): Condition["cls"] => (status === "offline" ? "offline" : status === "error" ? "error" : "ok");
const refKey = (r: WorkerRef) => `${r.automationType}|${r.workerId}`;

export function parseErrorEntry(raw: Buffer): WorkerErrorEntry | null {
  try {
    const parsed = WorkerErrorEntrySchema.safeParse(JSON.parse(raw.toString("utf8")));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/**
 * The entry to record when a worker went from `prev` (null: nothing recorded yet) to `cur`,
 * or null when nothing worth a line changed. A healthy worker never seen before records nothing.
 */
export function transition(prev: Condition | null, cur: Condition): WorkerErrorEntry["kind"] | null {
  if (prev === null) {
    if (cur.cls === "ok" && cur.error === null) return null;
  } else if (prev.cls === cur.cls && prev.error === cur.error) {
    return null;
  }
  if (cur.cls === "offline") return "offline";
  if (cur.cls === "error") return "error";
  // ok: back from error/offline, or the error cleared; a new error text while running is an error
  if (prev !== null && prev.cls === "ok" && cur.error !== null) return "error";
  if (prev === null) return "error";
  return "recovered";
}

/**
 * Since when a worker has shown `lastError`: the oldest entry of the newest run of entries
 * carrying that very text (newest first in `entries`); null when the newest entry does not.
 */
export function errorSince(entries: WorkerErrorEntry[], lastError: string | null): number | null {
  if (lastError === null) return null;
  let since: number | null = null;
  for (const e of entries) {
    if (e.error !== lastError) break;
    since = e.ts;
  }
  return since;
}

export class WorkerErrorRecorder {
  /** The condition last recorded (or found recorded) per worker, in this term. */
  private known = new Map<string, Condition>();
  /** The feed epoch the last read of the fleet was made in: its changes are all a tick needs. */
  private fedEpoch: number | null = null;
  /** Ticks that read the fleet, and ticks that took the feed's changes instead. */
  readonly counts = { reads: 0, fed: 0 };

  constructor(private readonly opts: { offlineAfterSeconds: number; feed?: WorkerFeedReader }) {}

  /** A new term starts from what Redis holds. */
  reset(): void {
    this.known.clear();
    this.fedEpoch = null;
  }

  /**
   * One pass over the fleet, or over the changes the feed found since the last one.
   * `stillLeading` is asked before writing: a term that ended meanwhile writes nothing.
   * Answers how many entries were written.
   */
  async tick(backend: Backend, now: number, stillLeading: () => boolean): Promise<number> {
    const feed = this.opts.feed;
    const epoch = feed?.epoch() ?? null;
    if (feed && epoch !== null && epoch === this.fedEpoch) {
      // changes taken are gone from the feed: a tick that fails or writes nothing reads the
      // fleet next time, so none of them is lost
      this.fedEpoch = null;
      const written = await this.fromChanges(backend, now, stillLeading, feed.take());
      if (written >= 0) this.fedEpoch = epoch;
      this.counts.fed++;
      return Math.max(0, written);
    }
    // what the feed holds is older than the read below, which sees all of it
    feed?.take();
    this.fedEpoch = null;
    const written = await this.fromRead(backend, now, stillLeading);
    this.counts.reads++;
    if (written >= 0) this.fedEpoch = epoch;
    return Math.max(0, written);
  }

  /** A tick from the feed's changes (oldest first); -1 when the term ended before writing. */
  private async fromChanges(backend: Backend, now: number, stillLeading: () => boolean, changes: WorkersChange[]): Promise<number> {
    const latest = new Map<string, Worker | null>();
    const keyOf = (w: { automation_type: string; worker_id: string }) => `${w.automation_type}|${w.worker_id}`;
    for (const c of changes) {
      for (const w of c.changed) latest.set(keyOf(w), w);
      for (const r of c.removed) latest.set(keyOf(r), null);
    }
    const unknown: WorkerRef[] = [];
    for (const [k, w] of latest) if (w !== null && !this.known.has(k)) unknown.push({ automationType: w.automation_type, workerId: w.worker_id });
    const recorded = await this.recordedHeads(backend, unknown);
    const next = new Map(this.known);
    const writes: WorkerErrorWrite[] = [];
    for (const [k, w] of latest) {
      if (w === null) {
        next.delete(k);
        continue;
      }
      const cur: Condition = { cls: classOf(w.status), error: w.last_error, lastSeen: w.last_seen };
      const known = this.known.get(k);
      // A change the loop read just before this recorder's last read of the fleet can arrive
      // after it: older than what that read saw (an earlier heartbeat), it is not news.
      if (known?.lastSeen != null && w.last_seen !== null && w.last_seen < known.lastSeen) continue;
      const kind = transition(known ?? recorded.get(k) ?? null, cur);
      if (kind !== null) {
        const entry: WorkerErrorEntry = { ts: now, kind, status: w.status, state: w.state, error: cur.error, last_seen: w.last_seen };
        writes.push({ automationType: w.automation_type, workerId: w.worker_id, entry: JSON.stringify(entry) });
      }
      next.set(k, cur);
    }
    return this.commit(backend, stillLeading, writes, next);
  }

  /**
   * Writes a tick's entries (nothing once the term has ended: -1), then takes `next` as what
   * is known; only after the write, so a failed one is retried. Workers not in `next` (gone
   * from the registry) are forgotten.
   */
  private async commit(backend: Backend, stillLeading: () => boolean, writes: WorkerErrorWrite[], next: Map<string, Condition>): Promise<number> {
    if (writes.length > 0) {
      if (!stillLeading()) return -1;
      await backend.workerErrorsPush(writes, { maxEntries: WORKER_ERRORS_KEEP, ttlSeconds: WORKER_ERRORS_TTL_SECONDS });
    }
    this.known = next;
    return writes.length;
  }

  /** The condition each worker's newest recorded entry shows (one read for them all). */
  private async recordedHeads(backend: Backend, refs: WorkerRef[]): Promise<Map<string, Condition>> {
    const recorded = new Map<string, Condition>();
    if (refs.length === 0) return recorded;
    const heads = await backend.workerErrorsRead(refs, 1);
    refs.forEach((r, j) => {
      const head = heads[j]?.[0];
      const entry = head ? parseErrorEntry(head) : null;
      if (entry) recorded.set(refKey(r), { cls: classOf(entry.status), error: entry.error });
    });
    return recorded;
  }

  /** A tick from a read of the whole fleet; -1 when the term ended before writing. */
  private async fromRead(backend: Backend, now: number, stillLeading: () => boolean): Promise<number> {
    const refs = await backend.workerList();
    const writes: WorkerErrorWrite[] = [];
    const next = new Map<string, Condition>();
    for (let i = 0; i < refs.length; i += SLICE) {
      const slice = refs.slice(i, i + SLICE);
      const unknown = slice.filter((r) => !this.known.has(refKey(r)));
      // status and error text in one read (the index with last_error): 10,000 workers every
      // 10 s were also 10,000 HGETs through the client, one command each
      const [index, recorded] = await Promise.all([backend.workersIndex(slice, { lastError: true }), this.recordedHeads(backend, unknown)]);
      slice.forEach((ref, j) => {
        const k = refKey(ref);
        const w = index[j]!;
        const status = workerStatus(w.state, w.lastSeen, now, this.opts.offlineAfterSeconds);
        const cur: Condition = { cls: classOf(status), error: w.lastError ?? null, lastSeen: w.lastSeen };
        const prev = this.known.get(k) ?? recorded.get(k) ?? null;
        const kind = transition(prev, cur);
        if (kind !== null) {
          const entry: WorkerErrorEntry = { ts: now, kind, status, state: w.state, error: cur.error, last_seen: w.lastSeen };
          writes.push({ ...ref, entry: JSON.stringify(entry) });
        }
        next.set(k, cur);
      });
    }
    return this.commit(backend, stillLeading, writes, next);
  }
}

/** The history of one worker as the API answers it. */
export async function readWorkerErrors(backend: Backend, ref: WorkerRef, limit = WORKER_ERRORS_KEEP): Promise<{ items: WorkerErrorEntry[]; corrupt: number }> {
  const [raw] = await backend.workerErrorsRead([ref], limit);
  const items: WorkerErrorEntry[] = [];
  let corrupt = 0;
  for (const b of raw ?? []) {
    const e = parseErrorEntry(b);
    if (e) items.push(e);
    else corrupt++;
  }
  return { items, corrupt };
}

/** `last_error_since` of each worker (null without a last_error): one round trip for them all. */
export async function lastErrorSince(backend: Backend, workers: Array<WorkerRef & { lastError: string | null }>): Promise<Array<number | null>> {
  const withError = workers.filter((w) => w.lastError !== null);
  if (withError.length === 0) return workers.map(() => null);
  const read = await backend.workerErrorsRead(withError, 10);
  const since = new Map<string, number | null>();
  withError.forEach((w, i) => {
    const entries = (read[i] ?? []).map(parseErrorEntry).filter((e): e is WorkerErrorEntry => e !== null);
    since.set(refKey(w), errorSince(entries, w.lastError));
  });
  return workers.map((w) => since.get(refKey(w)) ?? null);
}
