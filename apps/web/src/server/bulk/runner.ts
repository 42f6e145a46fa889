// Bulk actions on a search's matches (issue 14.2): requeue or delete every matching dead
// letter, delete every matching pending task. A job is a record in Redis
// (fleet:console:bulk:job:<id>: its spec, state, owner, part, place in it and counts); the
// process running it holds the Fleet lock `fleet-console-bulk:<id>` (as the watch holds its
// own, ../watch/leader.ts), renewed every third of the hold. Each chunk is read after the job's
// place by content (../search/list-cursor.ts: pops moving the list skip nothing; what was pushed
// after the part's read began is not acted on), matched here, and taken with one atomic script
// that re-checks every body and advances the record in the same step
// (Backend.queueTakeMatches): a body is never lost or moved twice, and a job whose process died
// is continued from the place its last chunk kept by whichever console takes the lock next
// (every console polls for running jobs; the lock of a dead process expires after its hold).
// The rate cap is kept by sleeping between chunks; progress goes out through onProgress.
//
// Framework-free (no Next, no env): tests build one over any Backend.
import { withAttemptsReset, type Backend, type Priority } from "@fleet/backend";
import { BulkJobDocSchema, parseFilter, type BulkAction, type BulkJob, type BulkJobDoc } from "@fleet/schema";
import { z } from "zod";

import { advance, newCursor, nextChunk, parseCursor, serializeCursor } from "../search/list-cursor";
import { makeMatcher } from "../search/scan";

export const BULK_LOCK_PREFIX = "fleet-console-bulk:";
/** Held (for as long as the record is kept) by the one process that completed a job's audit entry. */
export const BULK_AUDIT_ONCE_PREFIX = "fleet-console-bulk-audited:";
/** Entries read per chunk, and tasks taken per chunk at most (fewer under a low rate). */
export const BULK_READ = 1000;
export const BULK_TAKE_MAX = 500;
/** A finished job's record is kept this long. */
export const BULK_KEEP_SECONDS = 7 * 24 * 3600;
/** At most one progress message per job per this many milliseconds (and one when it ends). */
export const BULK_PROGRESS_EVERY_MS = 500;

/**
 * The audit entry of the job's start, as the route wrapper wrote it (`entry`) in place of its
 * pending one (`pending`): the job's end completes that very entry (one entry per job).
 * Both are the exact bytes, as text (Python's json.dumps output is ASCII).
 */
const StoredAuditSchema = z.object({ audit: z.object({ pending: z.string(), entry: z.string() }).optional() });
export interface JobAudit {
  pending: Buffer;
  entry: Buffer;
}

/** The doc of a new job as stored: its spec and the bytes of its audit entry. */
export function storedDoc(doc: BulkJobDoc, audit: JobAudit | null): BulkJobDoc & { audit?: { pending: string; entry: string } } {
  return audit ? { ...doc, audit: { pending: audit.pending.toString("latin1"), entry: audit.entry.toString("latin1") } } : doc;
}

export function auditOfRecord(rec: NonNullable<Awaited<ReturnType<Backend["bulkJobGet"]>>[number]>): JobAudit | null {
  try {
    const a = StoredAuditSchema.parse(JSON.parse(rec.doc?.toString("utf8") ?? "null")).audit;
    return a ? { pending: Buffer.from(a.pending, "latin1"), entry: Buffer.from(a.entry, "latin1") } : null;
  } catch {
    return null;
  }
}

export function partsOfAction(action: BulkAction): Array<Priority | "dead"> {
  return action === "delete-pending" ? ["high", "normal", "low"] : ["dead"];
}

export function jobFromRecord(rec: NonNullable<Awaited<ReturnType<Backend["bulkJobGet"]>>[number]>): BulkJob | null {
  let doc: BulkJobDoc;
  try {
    doc = BulkJobDocSchema.parse(JSON.parse(rec.doc?.toString("utf8") ?? "null"));
  } catch {
    return null;
  }
  const state = rec.state === "running" || rec.state === "done" || rec.state === "cancelled" || rec.state === "failed" ? rec.state : "failed";
  return { ...doc, id: rec.id, state, scanned: rec.scanned, done: rec.done, missing: rec.missing, note: rec.note };
}

export interface BulkRunnerOptions {
  getBackend: () => Promise<Backend>;
  holdSeconds?: number;
  /** How often running jobs without a live owner are looked for. */
  pollMs?: number;
  /**
   * Called once per job when it has ended (done, cancelled or failed), by whichever process
   * saw it end first (a once-lock decides): completes its audit entry, announces it.
   */
  onFinished?: (job: BulkJob, audit: JobAudit | null) => Promise<void>;
  /** A running job's counts after a chunk, at most every BULK_PROGRESS_EVERY_MS. */
  onProgress?: (job: BulkJob) => Promise<void>;
  progressEveryMs?: number;
  log?: (line: string) => void;
  sleep?: (ms: number) => Promise<void>;
}

const sleepMs = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export class BulkRunner {
  private readonly running = new Map<string, Promise<void>>();
  private stopped = false;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private readonly hold: number;
  private readonly log: (line: string) => void;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly opts: BulkRunnerOptions) {
    this.hold = opts.holdSeconds ?? 30;
    this.log = opts.log ?? (() => {});
    this.sleep = opts.sleep ?? sleepMs;
  }

  /** Polls for running jobs nobody runs (at once, then every pollMs). */
  start(): void {
    if (this.timer || this.stopped) return;
    const tick = () => {
      this.timer = null;
      void this.pollOnce()
        .catch((err: unknown) => this.log(`poll failed: ${err instanceof Error ? err.message : String(err)}`))
        .finally(() => {
          if (this.stopped) return;
          this.timer = setTimeout(tick, this.opts.pollMs ?? 10_000);
          this.timer.unref?.();
        });
    };
    tick();
  }

  /** Takes every running job whose lock is free (its process died, or it was just created). */
  async pollOnce(): Promise<void> {
    const backend = await this.opts.getBackend();
    const ids = await backend.bulkJobIds(200);
    const recs = await backend.bulkJobGet(ids);
    for (const rec of recs) {
      if (rec?.state === "running" && !this.running.has(rec.id)) await this.claim(rec.id);
    }
  }

  /** Tries to run one job here now; false when another process holds it. */
  async claim(id: string): Promise<boolean> {
    if (this.stopped || this.running.has(id)) return false;
    const token = await this.reserve(id);
    return token !== null && (await this.runReserved(id, token));
  }

  /**
   * Takes a job's lock without running it yet: a job being created is reserved first, so no
   * other console's poll takes it before its request has written its audit entry. The lock
   * lapses after its hold should this process never run it.
   */
  async reserve(id: string): Promise<string | null> {
    const backend = await this.opts.getBackend();
    return backend.lockAcquire(`${BULK_LOCK_PREFIX}${id}`, this.hold, 0);
  }

  /** Runs a job whose lock this process holds; false (and the lock released) when it is no longer running. */
  async runReserved(id: string, token: string): Promise<boolean> {
    const backend = await this.opts.getBackend();
    if (this.stopped || this.running.has(id) || !(await backend.bulkJobSet(id, { owner: token }, { ifState: "running" }))) {
      await backend.lockRelease(`${BULK_LOCK_PREFIX}${id}`, token).catch(() => false);
      if (!this.running.has(id)) await this.finished(id);
      return false;
    }
    const run = this.run(id, token)
      .catch((err: unknown) => this.log(`job ${id} stopped: ${err instanceof Error ? err.message : String(err)}`))
      .finally(() => this.running.delete(id));
    this.running.set(id, run);
    return true;
  }

  /**
   * For a job that ended without a process running it (cancelled while its console was
   * away): completes it here when its lock is free; otherwise its runner does, at its next chunk.
   */
  async finishIfIdle(id: string): Promise<void> {
    if (this.running.has(id)) return;
    const backend = await this.opts.getBackend();
    const lock = `${BULK_LOCK_PREFIX}${id}`;
    const token = await backend.lockAcquire(lock, this.hold, 0);
    if (token === null) return;
    try {
      await this.finished(id);
    } finally {
      await backend.lockRelease(lock, token).catch(() => false);
    }
  }

  /** Once per job, in whichever process gets here first: the end's callback. */
  private async finished(id: string): Promise<void> {
    const backend = await this.opts.getBackend();
    const [rec] = await backend.bulkJobGet([id]).catch(() => [null]);
    const job = rec ? jobFromRecord(rec) : null;
    if (!rec || !job || job.state === "running") return;
    const once = await backend.lockAcquire(`${BULK_AUDIT_ONCE_PREFIX}${id}`, BULK_KEEP_SECONDS, 0).catch(() => null);
    if (once === null) return;
    await this.opts
      .onFinished?.(job, auditOfRecord(rec))
      .catch((err: unknown) => this.log(`job ${id}: its end could not be recorded: ${err instanceof Error ? err.message : String(err)}`));
  }

  /** Waits for a job this process runs (tests). */
  async settle(id: string): Promise<void> {
    await this.running.get(id);
  }

  private async run(id: string, token: string): Promise<void> {
    const backend = await this.opts.getBackend();
    const lock = `${BULK_LOCK_PREFIX}${id}`;
    let lost = false;
    const renewEvery = Math.max(100, (this.hold * 1000) / 3);
    let renewedAt = Date.now();
    const renew = async () => {
      if (Date.now() - renewedAt < renewEvery) return;
      renewedAt = Date.now();
      lost = !(await backend.lockExtend(lock, token, this.hold).catch(() => false));
    };
    try {
      const [rec] = await backend.bulkJobGet([id]);
      const job = rec ? jobFromRecord(rec) : null;
      if (!rec || !job) {
        await backend.bulkJobSet(id, { state: "failed", note: "the job's record does not parse" }, { ifState: "running", keepSeconds: BULK_KEEP_SECONDS });
        return;
      }
      this.log(`job ${id}: ${job.action} on queue ${job.queue}, from part ${rec.part} at ${rec.cursor}`);
      const parts = partsOfAction(job.action);
      const matches = makeMatcher(job.q ?? undefined, job.where ? parseFilter(job.where) : null);
      const perChunk = Math.min(BULK_TAKE_MAX, job.rate);
      let part = rec.part;
      // where the read of the part is (./../search/list-cursor.ts), as the last chunk kept it
      let cursor = rec.scan ? parseCursor(rec.scan) : newCursor();
      let taken = 0;
      const t0 = Date.now();
      const counts = { scanned: rec.scanned, done: rec.done, missing: rec.missing };
      let progressAt = 0;
      const progress = async () => {
        if (!this.opts.onProgress || Date.now() - progressAt < (this.opts.progressEveryMs ?? BULK_PROGRESS_EVERY_MS)) return;
        progressAt = Date.now();
        await this.opts.onProgress({ ...job, ...counts, state: "running" }).catch(() => undefined);
      };
      while (part < parts.length) {
        if (this.stopped || lost) return;
        const list = parts[part]!;
        // exactEnd: what was pushed after the part's read began is never acted on (a requeued task that fails again stays dead)
        const next = await nextChunk((start, count) => backend.queueScan(job.queue, list, start, count), list, cursor, BULK_READ, { exactEnd: true });
        const partDone = next.corrupt || next.entries.length === 0;
        const items: Array<{ index: number; body: Buffer; replacement: Buffer }> = [];
        let examined = next.entries;
        for (let i = 0; i < next.entries.length; i++) {
          const e = next.entries[i]!;
          if (!matches(e.body)) continue;
          items.push({ index: e.index, body: e.body, replacement: job.action === "requeue-dead" ? withAttemptsReset(e.body) : e.body });
          if (items.length >= perChunk) {
            examined = next.entries.slice(0, i + 1);
            break;
          }
        }
        // The cursor as it stands before this chunk is kept with the chunk's take: a process that
        // dies after the take examines this chunk again (what it took is gone; the rest is read
        // again), never skips what came after the last chunk it kept.
        const res = await backend.queueTakeMatches(job.queue, {
          jobId: id,
          owner: token,
          action: job.action === "requeue-dead" ? "requeue" : "delete",
          part: list,
          start: examined[0]?.index ?? 0,
          read: examined.length,
          partIndex: part,
          partDone,
          items,
          scan: serializeCursor(partDone ? newCursor() : cursor),
        });
        if (!res.ok) return; // cancelled, or another process owns it now
        taken += res.taken;
        counts.scanned += examined.length;
        counts.done += res.taken;
        counts.missing += res.missing;
        if (examined.length > 0) await progress();
        if (partDone) {
          part++;
          cursor = newCursor();
        } else {
          // taken or found gone: out of the list; a body not placed (`unknown`): read again from before it
          const unknown = new Set(res.unknown);
          const removed = new Set(items.filter((_, n) => !unknown.has(n)).map((it) => it.index));
          const unknownFrom = res.unknown.length > 0 ? Math.min(...res.unknown.map((n) => items[n]!.index)) : undefined;
          advance(list, cursor, examined, removed, unknownFrom);
        }
        await renew();
        // the rate cap: never more than `rate` tasks per second since the job (re)started here
        const due = t0 + (taken / job.rate) * 1000 - Date.now();
        if (due > 0) await this.sleep(due);
      }
      await backend.bulkJobSet(id, { state: "done" }, { ifState: "running", keepSeconds: BULK_KEEP_SECONDS });
    } catch (err) {
      if (!this.stopped) {
        this.log(`job ${id} failed: ${err instanceof Error ? err.message : String(err)}`);
        // Redis away: leave it running, another try (here or elsewhere) continues it
        throw err;
      }
    } finally {
      await backend.lockRelease(lock, token).catch(() => false);
      if (!this.stopped) await this.finished(id);
    }
  }

  /** Stops taking chunks (the current one completes) and releases the locks: another console continues. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await Promise.all([...this.running.values()]);
  }
}
