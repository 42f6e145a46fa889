// What the bulk routes do (src/app/api/v1/queues/[name]/bulk/**): start a job after its
// preview was confirmed, read jobs, cancel one. Thin wrappers around the record in Redis and
// the process-wide runner.
import { randomBytes } from "node:crypto";

import { pyJsonBytes, type Backend } from "@fleet/backend";
import { FilterSyntaxError, parseFilter, type BulkJob, type BulkJobDoc, type StartBulkJobBody } from "@fleet/schema";

import { noteAction } from "../audit/audit";
import type { Principal } from "../api/authorize";
import { conflict, notFound, validationFailed } from "../api/errors";
import { requireQueue } from "../api/queues";
import { BULK_KEEP_SECONDS, jobFromRecord } from "./runner";

export async function startBulkJob(backend: Backend, queue: string, body: StartBulkJobBody, principal: Principal, claim: (id: string) => Promise<boolean>): Promise<BulkJob> {
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
  noteAction({ job: id, bulk_action: doc.action, q: doc.q, where: doc.where, rate: doc.rate, expected: doc.expected });
  await backend.bulkJobCreate(id, pyJsonBytes(doc));
  // run it here at once; should this process die, another console continues it
  await claim(id);
  return (await readJob(backend, queue, id))!;
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

export async function cancelJob(backend: Backend, queue: string, id: string, principal: Principal): Promise<BulkJob> {
  const job = await readJob(backend, queue, id);
  if (!job) throw notFound(`There is no bulk job ${id} on queue ${queue}.`);
  if (job.state !== "running") throw conflict(`The job is already ${job.state}: nothing to cancel.`);
  const ok = await backend.bulkJobSet(id, { state: "cancelled", note: `cancelled by ${principal.name}` }, { ifState: "running", keepSeconds: BULK_KEEP_SECONDS });
  if (!ok) throw conflict("The job ended meanwhile: nothing to cancel.");
  noteAction({ job: id, done: job.done });
  return (await readJob(backend, queue, id))!;
}
