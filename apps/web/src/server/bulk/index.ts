// The process-wide bulk runner (./runner.ts), wired to the app's backend, the audit trail,
// the event bus and shutdown. Started with the watch (the first request of an armed server
// process): from then on it continues running jobs whose process died. A job created here
// is reserved here at once and run once its request has written its audit entry
// (POST /queues/{name}/bulk).
import "server-only";

import { pyJsonBytes } from "@fleet/backend";
import type { BulkJob } from "@fleet/schema";

import { appendAudit, completeAudit, newAuditId, type AuditEntry } from "../audit/audit";
import { getBackend } from "../backend";
import { onShutdown } from "../shutdown";
import { BulkRunner, type JobAudit } from "./runner";

const holder = globalThis as typeof globalThis & { __fleetBulk?: BulkRunner; __fleetWatchArmed?: boolean };

/** The bus topic of bulk jobs' progress (`event:fleet.bulk`): the job as GET /queues/{name}/bulk/{id} answers it. */
export const BULK_TOPIC = "fleet.bulk";

/** What a job's end adds to the details of its entry. */
function endDetails(job: BulkJob): Record<string, unknown> {
  return {
    state: job.state,
    scanned: job.scanned,
    done: job.done,
    missing: job.missing,
    ended_at: Math.round(Date.now()) / 1000,
    ...(job.note ? { note: job.note } : {}),
  };
}

/** A job's end: its one audit entry completed with the counts it reached, and announced. */
async function jobFinished(job: BulkJob, audit: JobAudit | null): Promise<void> {
  const backend = await getBackend();
  const outcome = job.state === "failed" ? "failed" : "done";
  let started: AuditEntry | null = null;
  try {
    started = audit ? (JSON.parse(audit.entry.toString("utf8")) as AuditEntry) : null;
  } catch {
    started = null;
  }
  if (audit && started) {
    await completeAudit(backend, audit.pending, audit.entry, { ...started, outcome, details: { ...(started.details ?? {}), ...endDetails(job) } });
  } else {
    // a job recorded without its entry's bytes (an older console started it): its end as an entry of its own
    await appendAudit(backend, {
      id: newAuditId(),
      outcome,
      ts: Math.round(Date.now()) / 1000,
      actor: job.created_by,
      role: job.role,
      via: "console",
      action: "queue.bulk",
      target: `queue:${job.queue}`,
      method: "POST",
      path: `/api/v1/queues/${encodeURIComponent(job.queue)}/bulk`,
      status: 202,
      details: { job: job.id, bulk_action: job.action, q: job.q, where: job.where, rate: job.rate, expected: job.expected, ...endDetails(job) },
    });
  }
  await publishJob(job);
}

async function publishJob(job: BulkJob): Promise<void> {
  try {
    const backend = await getBackend();
    await backend.eventPublish(BULK_TOPIC, pyJsonBytes(job));
  } catch (err) {
    console.warn(`[bulk] could not publish on event:${BULK_TOPIC}`, err instanceof Error ? err.message : err);
  }
}

export function getBulkRunner(): BulkRunner {
  if (holder.__fleetBulk) return holder.__fleetBulk;
  const runner = new BulkRunner({ getBackend, onFinished: jobFinished, onProgress: publishJob, log: (line) => console.log(`[bulk] ${line}`) });
  holder.__fleetBulk = runner;
  onShutdown(() => {
    void runner.stop();
  });
  return runner;
}

/** Announces a job's state now (its start, a cancel). */
export async function announceJob(job: BulkJob): Promise<void> {
  await publishJob(job);
}

/** With the watch: polls for running jobs left by a process that died. */
export function startBulkRunnerIfArmed(): void {
  if (holder.__fleetWatchArmed) getBulkRunner().start();
}
