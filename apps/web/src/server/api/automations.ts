// GET /automations and /automations/{type}: the union of catalog entries and worker
// types, each with its worker counts, its queue and its stream. A handful of batched
// reads whatever the number of automations. The counts need each worker's status alone
// (state and last_seen): they come from the light index (workersIndex), never from full
// records, whose JSON documents (hardware, config, stats) nothing here shows; the overview
// asks for this on every load, beside a fleet of 10,000.
import { queueNameProblem, type Backend, type WorkerIndexEntry } from "@fleet/backend";
import type { Automation, WorkerStatus } from "@fleet/schema";

import { notFound } from "./errors";
import { byString } from "./resources";
import { isEmptyQueue, toAutomation, toQueue, workerStatus } from "./serialize";

const statusOf =
  (now: number, offlineAfterSeconds: number) =>
  (e: WorkerIndexEntry): { status: WorkerStatus } => ({
    status: workerStatus(e.state, e.lastSeen, now, offlineAfterSeconds),
  });

export async function listAutomations(backend: Backend, now: number, offlineAfterSeconds: number): Promise<Automation[]> {
  const [catalog, refs] = await Promise.all([backend.catalogAll(), backend.workerList()]);
  const types = [...new Set([...catalog.keys(), ...refs.map((r) => r.automationType)])].sort(byString);
  const [entries, depths, streams] = await Promise.all([backend.workersIndex(refs), backend.queueDepths(types, now), backend.streamSummaries(types)]);
  const byType = new Map<string, WorkerIndexEntry[]>();
  for (const r of entries) {
    const list = byType.get(r.automationType);
    if (list) list.push(r);
    else byType.set(r.automationType, [r]);
  }
  return types.map((type, i) => {
    // a type like `x:dead` has no queue of its own: those keys are queue x's
    const queue = depths[i] && queueNameProblem(type) === null ? toQueue(depths[i]) : null;
    const streamLength = streams[i]?.length ?? 0;
    return toAutomation({
      automationType: type,
      catalog: catalog.get(type) ?? null,
      workers: (byType.get(type) ?? []).map(statusOf(now, offlineAfterSeconds)),
      queue: queue === null || isEmptyQueue(queue) ? null : queue,
      streamLength: streamLength > 0 ? streamLength : null,
    });
  });
}

export async function getAutomation(backend: Backend, type: string, now: number, offlineAfterSeconds: number): Promise<Automation> {
  const [catalog, refs, depths, streamLength] = await Promise.all([
    backend.catalogGet(type),
    backend.workerList(type),
    backend.queueDepths([type], now),
    backend.streamLength(type),
  ]);
  if (catalog === null && refs.length === 0) throw notFound(`There is no automation '${type}' (no catalog entry and no worker).`);
  const entries = await backend.workersIndex(refs);
  const queue = depths[0] && queueNameProblem(type) === null ? toQueue(depths[0]) : null;
  return toAutomation({
    automationType: type,
    catalog,
    workers: entries.map(statusOf(now, offlineAfterSeconds)),
    queue: queue === null || isEmptyQueue(queue) ? null : queue,
    streamLength: streamLength > 0 ? streamLength : null,
  });
}
