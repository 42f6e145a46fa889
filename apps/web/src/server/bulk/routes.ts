// What the bulk routes do (src/app/api/v1/queues/[name]/bulk/**): start a job after its
// preview was confirmed, read jobs, cancel one. Thin wrappers around the record in Redis and
// the process-wide runner.
import { randomBytes } from "node:crypto";

import { pyJsonBytes, type Backend } from "@fleet/backend";
import { BULK_ACTION_LISTS, FilterSyntaxError, parseFilter, type BulkJob, type BulkJobDoc, type StartBulkJobBody } from "@fleet/schema";

import { afterAudit, fixAuditEntry, noteAction } from "../audit/audit";
import type { Principal } from "../api/authorize";
import { conflict, notFound, validationFailed } from "../api/errors";
import { requireQueue } from "../api/queues";
import { BULK_KEEP_SECONDS, jobFromRecord, storedDoc, type BulkRunner } from "./runner";

/** What the routes need of the process's runner (./runner.ts; tests pass their own). */
export type RunnerHandle = Pick<BulkRunner, "reserve" | "runReserved" | "finishIfIdle">;

export async function startBulkJob(backend: Backend, queue: string, body: StartBulkJobBody, principal: Principal, runner: RunnerHandle): Promise<BulkJob> {
  const where = body.where?.trim() ? body.where.trim() : null;
  if (where) {
    try {
      parseFilter(where);
    } catch (err) {
      if (!(err instanceof FilterSyntaxError)) throw err;
      throw validationFailed(`The filter does not parse ${err.message}.`, [{ path: "/where", message: err.message }]);
    }
  }
  await requireQueue(backend, queue);
  // one job at a time on a list: two would move it under each other, and their counts would mean little
  const busy = (await listJobs(backend, queue)).find((j) => j.state === "running" && BULK_ACTION_LISTS[j.action] === BULK_ACTION_LISTS[body.action]);
  if (busy)
    throw conflict(
      `Bulk job ${busy.id} (${busy.action}, started by ${busy.created_by}) is still running on the ${BULK_ACTION_LISTS[body.action]} tasks of queue ${queue}: wait for it, or cancel it first.`,
    );
  const doc: BulkJobDoc = {
    queue,
    action: body.action,
    q: body.q?.trim() ? body.q : null,
    where,
    rate: body.rate,
    expected: body.expected,
    created_at: Math.round(Date.now()) / 1000,
    created_by: principal.name,
    role: principal.role,
  };
  const id = randomBytes(8).toString("hex");
  noteAction({ job: id, bulk_action: doc.action, q: doc.q, where: doc.where, rate: doc.rate, expected: doc.expected, state: "running" });
  // One entry for the whole job: the one the route wrapper writes now is completed in place
  // when the job ends (./index.ts), so the record keeps its exact bytes.
  const fixed = fixAuditEntry(202);
  // reserved before it exists: no other console runs it before that entry is written
  const token = await runner.reserve(id);
  if (token === null) throw new Error(`the lock of the new bulk job ${id} is taken`);
  await backend.bulkJobCreate(id, pyJsonBytes(storedDoc(doc, fixed ? { pending: fixed.pending, entry: fixed.bytes } : null)));
  afterAudit(async () => {
    await runner.runReserved(id, token);
  });
  return { ...doc, id, state: "running", scanned: 0, done: 0, missing: 0, note: "" };
}

export async function readJob(backend: Backend, queue: string, id: string): Promise<BulkJob | null> {
  const [rec] = await backend.bulkJobGet([id]);
  const job = rec ? jobFromRecord(rec) : null;
  return job && job.queue === queue ? job : null;
}

export async function listJobs(backend: Backend, queue: string): Promise<BulkJob[]> {
  const ids = await backend.bulkJobIds(200);
  const recs = await backend.bulkJobGet(ids);
  return recs.flatMap((r) => {
    const job = r ? jobFromRecord(r) : null;
    return job && job.queue === queue ? [job] : [];
  });
}

export async function cancelJob(backend: Backend, queue: string, id: string, principal: Principal, runner: RunnerHandle): Promise<BulkJob> {
  const job = await readJob(backend, queue, id);
  if (!job) throw notFound(`There is no bulk job ${id} on queue ${queue}.`);
  if (job.state !== "running") throw conflict(`The job is already ${job.state}: nothing to cancel.`);
  const ok = await backend.bulkJobSet(id, { state: "cancelled", note: `cancelled by ${principal.name}` }, { ifState: "running", keepSeconds: BULK_KEEP_SECONDS });
  if (!ok) throw conflict("The job ended meanwhile: nothing to cancel.");
  noteAction({ job: id, done: job.done });
  // its runner completes the job's entry at its next chunk; a job nobody runs now, here
  afterAudit(() => runner.finishIfIdle(id));
  return (await readJob(backend, queue, id))!;
}
