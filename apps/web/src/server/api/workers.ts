// GET /workers: every worker is read in one batched call, then filtered, counted, sorted
// and paged in memory, which keeps 10,000 workers to a couple of round trips.
import type { Backend } from "@fleet/backend";
import type { WorkerList, WorkerStatus } from "@fleet/schema";

import { byString, page } from "./resources";
import { countWorkers, toWorker, workerHostname } from "./serialize";

export interface WorkersQuery {
  type?: string;
  status?: WorkerStatus;
  q?: string;
  limit: number;
  offset: number;
}

export async function listWorkers(backend: Backend, query: WorkersQuery, now: number, offlineAfterSeconds: number): Promise<WorkerList> {
  const refs = await backend.workerList(query.type);
  const records = await backend.workersGet(refs);
  let workers = records.map((r) => toWorker(r, now, offlineAfterSeconds));
  if (query.q !== undefined && query.q !== "") {
    const needle = query.q.toLowerCase();
    workers = workers.filter(
      (w) => w.worker_id.toLowerCase().includes(needle) || (workerHostname(w)?.toLowerCase().includes(needle) ?? false),
    );
  }
  // counts cover type and q, before status and paging: the filter chips show what each would give
  const counts = countWorkers(workers);
  if (query.status !== undefined) workers = workers.filter((w) => w.status === query.status);
  workers.sort((a, b) => byString(a.automation_type, b.automation_type) || byString(a.worker_id, b.worker_id));
  return { total: workers.length, counts, workers: page(workers, query) };
}
