// The process-wide bulk runner (./runner.ts), wired to the app's backend, the audit trail
// and shutdown. Started with the watch (the first request of an armed server process):
// from then on it continues running jobs whose process died. A job created here is claimed
// here at once (POST /queues/{name}/bulk).
import "server-only";

import type { BulkJob } from "@fleet/schema";

import { appendAudit, newAuditId } from "../audit/audit";
import { getBackend } from "../backend";
import { onShutdown } from "../shutdown";
import { BulkRunner } from "./runner";

const holder = globalThis as typeof globalThis & { __fleetBulk?: BulkRunner; __fleetWatchArmed?: boolean };

/** The end of a job, as one more entry beside the one of its start: the counts it reached. */
async function auditFinished(job: BulkJob): Promise<void> {
  const backend = await getBackend();
  await appendAudit(backend, {
    id: newAuditId(),
    outcome: job.state === "done" ? "done" : job.state === "cancelled" ? "done" : "failed",
    ts: Math.round(Date.now()) / 1000,
    actor: job.created_by,
    role: job.role,
    via: "console",
    action: `queue.bulk.${job.state}`,
    target: `queue:${job.queue}`,
    method: "POST",
    path: `/api/v1/queues/${encodeURIComponent(job.queue)}/bulk`,
    status: 200,
    details: {
      job: job.id,
      bulk_action: job.action,
      q: job.q,
      where: job.where,
      rate: job.rate,
      expected: job.expected,
      done: job.done,
      missing: job.missing,
      scanned: job.scanned,
      ...(job.note ? { note: job.note } : {}),
    },
  });
}

export function getBulkRunner(): BulkRunner {
  if (holder.__fleetBulk) return holder.__fleetBulk;
  const runner = new BulkRunner({ getBackend, onFinished: auditFinished, log: (line) => console.log(`[bulk] ${line}`) });
  holder.__fleetBulk = runner;
  onShutdown(() => {
    void runner.stop();
  });
  return runner;
}

/** With the watch: polls for running jobs left by a process that died. */
export function startBulkRunnerIfArmed(): void {
  if (holder.__fleetWatchArmed) getBulkRunner().start();
}
