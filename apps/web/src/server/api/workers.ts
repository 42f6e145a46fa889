// GET /workers: filtering, counting and sorting need only each worker's state, last_seen
// and (for `q`) hostname, so the whole fleet is read through the light batched index and
// full records (config, stats, hardware...) only for the page. 10,000 workers stay a few
// round trips, and the decoding cost follows `limit`, not the fleet's size.
import { workerKeyTwins, type Backend, type WorkerIndexEntry } from "@fleet/backend";
import { normalizeErrorMessage, type WorkerList, type WorkerStatus, type WorkersSort } from "@fleet/schema";

import { conflict } from "./errors";
import { byString, page } from "./resources";
import { emptyWorkerCounts, toWorker, workerStatus } from "./serialize";

export interface WorkersQuery {
  type?: string;
  status?: WorkerStatus;
  q?: string;
  /** Only workers whose last_error normalises to this group (a console extension, issue 14). */
  error_group?: string;
  /** Absent means `name`, the contract's order. */
  sort?: WorkersSort;
  limit: number;
  offset: number;
}

export async function listWorkers(backend: Backend, query: WorkersQuery, now: number, offlineAfterSeconds: number): Promise<WorkerList> {
  let entries = await matchingWorkers(backend, query, now, offlineAfterSeconds);
  // counts cover type and q, before status and paging: the filter chips show what each would give
  const counts = emptyWorkerCounts();
  for (const { status } of entries) counts[status] += 1;
  if (query.status !== undefined) entries = entries.filter(({ status }) => status === query.status);
  entries.sort(comparator(query.sort ?? "name"));
  const shown = page(entries, query).map(({ entry }) => ({ automationType: entry.automationType, workerId: entry.workerId }));
  const records = shown.length > 0 ? await backend.workersGet(shown) : [];
  return { total: entries.length, counts, workers: records.map((r) => toWorker(r, now, offlineAfterSeconds)) };
}

/**
 * Every worker matching `type`, `q` and `error_group` (status aside), with its status: the
 * light index for all of them, and for `error_group` first the state hashes (workersState),
 * so only the workers of the group are read further.
 */
export async function matchingWorkers(
  backend: Backend,
  filter: { type?: string; q?: string; error_group?: string },
  now: number,
  offlineAfterSeconds: number,
): Promise<Array<{ entry: WorkerIndexEntry; status: WorkerStatus }>> {
  let refs = await backend.workerList(filter.type);
  if (filter.error_group !== undefined) {
    const group = filter.error_group;
    const states = await backend.workersState(refs);
    refs = refs.filter((_, i) => normalizeErrorMessage(states[i]!.lastError) === group);
  }
  const needle = filter.q !== undefined && filter.q !== "" ? filter.q.toLowerCase() : null;
  const index = await backend.workersIndex(refs, { hostname: needle !== null });
  const entries = index.map((entry) => ({ entry, status: workerStatus(entry.state, entry.lastSeen, now, offlineAfterSeconds) }));
  return needle !== null ? entries.filter(({ entry }) => matches(entry, needle)) : entries;
}

type Ranked = { entry: WorkerIndexEntry };

function byName(a: Ranked, b: Ranked): number {
  return byString(a.entry.automationType, b.entry.automationType) || byString(a.entry.workerId, b.entry.workerId);
}

/**
 * `last_seen` (oldest first) and `-last_seen` (newest first) are a console extension, for
 * the /workers page's sort done here rather than over the whole fleet in the browser. An
 * unreadable or missing last_seen counts as the oldest; ties fall back to type, then id.
 */
function comparator(sort: WorkersSort): (a: Ranked, b: Ranked) => number {
  if (sort === "name") return byName;
  const dir = sort === "last_seen" ? 1 : -1;
  const seen = (r: Ranked) => (r.entry.lastSeen !== null && Number.isFinite(r.entry.lastSeen) ? r.entry.lastSeen : -Infinity);
  return (a, b) => {
    const x = seen(a);
    const y = seen(b);
    return (x === y ? 0 : x < y ? -dir : dir) || byName(a, b);
  };
}

/** `q` matches the worker id or the hostname of its hardware payload, case-insensitively. */
function matches(entry: WorkerIndexEntry, needle: string): boolean {
  return entry.workerId.toLowerCase().includes(needle) || (entry.hostname?.toLowerCase().includes(needle) ?? false);
}

/**
 * Refuses a write to workers whose keys are also another registered worker's: `a:b`/`c`
 * and `a`/`b:c` both build `wkr:a:b:c:…`, so deleting or configuring one would change the
 * other (which may belong to another automation, with another config schema). Both names
 * are allowed (API.md), only the ambiguous pair is refused; nothing has been written.
 */
export async function refuseSharedWorkerKeys(backend: Backend, refs: ReadonlyArray<{ automationType: string; workerId: string }>): Promise<void> {
  const twins = refs.flatMap((r) => workerKeyTwins(r.automationType, r.workerId).map((t) => ({ of: r, twin: t })));
  if (twins.length === 0) return;
  const records = await backend.workersGet(twins.map((t) => t.twin));
  const clash = twins.find((_, i) => records[i]?.registered === true);
  if (!clash) return;
  throw conflict(
    `Worker '${clash.of.workerId}' of automation '${clash.of.automationType}' has the same keys (wkr:${clash.of.automationType}:${clash.of.workerId}:…) as worker '${clash.twin.workerId}' of automation '${clash.twin.automationType}'; ` +
      "the console cannot change one without the other, so nothing was changed. Remove one of them with the worker itself or redis-cli.",
  );
}
