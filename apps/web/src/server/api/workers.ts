// GET /workers: filtering, counting and sorting need only each worker's state, last_seen
// and (for `q`) hostname, so the whole fleet is read through the light batched index and
// full records (config, stats, hardware...) only for the page. 10,000 workers stay a few
// round trips, and the decoding cost follows `limit`, not the fleet's size.
//
// Paging (issue 11, point 6): a page after the first (offset > 0) pages through the index
// the first page read, when the last page served from it is at most INDEX_SNAPSHOT_MS ago
// (and the read itself at most INDEX_SNAPSHOT_MAX_MS), the fleet has as many workers (SCARD
// wkrs:all) and every worker of the page, read afresh, still has the status (and
// registration, and for `q` the hostname) the index gave it; otherwise it reads the index
// again. Rows are always read afresh; `total`, `counts` and the order of a later page are
// those of that index: a fleet paged through is one consistent list (heartbeats reorder a
// last_seen sort every second; pages of fresh indexes would skip and repeat workers), also
// when a busy machine makes the pass longer than a few seconds (each page renews the
// snapshot; a pass that pauses longer starts over). The first page always reads it afresh.
import { workerKeyTwins, type Backend, type WorkerIndexEntry, type WorkerRef, type WorkerRow } from "@fleet/backend";
import { normalizeErrorMessage, type Worker, type WorkerList, type WorkerStatus, type WorkersSort } from "@fleet/schema";

import { conflict } from "./errors";
import { byString, page } from "./resources";
import { lastErrorSince } from "../watch/worker-errors";
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

/** How long after the last page it served a first page's index serves the next one. */
export const INDEX_SNAPSHOT_MS = 3000;
/** The oldest index a later page is served from, however steadily the pages came. */
export const INDEX_SNAPSHOT_MAX_MS = 30_000;
/** Index snapshots kept per backend (one per type filter and hostname need). */
const SNAPSHOTS_KEPT = 8;

interface Snapshot {
  at: number;
  /** When a page was last served from it (Date.now()). */
  used: number;
  /** SCARD wkrs:all when it was read. */
  count: number;
  /** In the contract's order (type, then id). */
  entries: WorkerIndexEntry[];
  /** The same entries in the last_seen orders, sorted once asked for. */
  sorted: Partial<Record<WorkersSort, WorkerIndexEntry[]>>;
  /** Counts of all entries by status, kept while no status can have changed (see allCounts). */
  counts?: KeptCounts;
}

interface KeptCounts {
  now: number;
  offlineAfterSeconds: number;
  /** The earliest last_seen of the workers not offline at `now` (Infinity when none). */
  oldestLive: number;
  counts: WorkerList["counts"];
}

const snapshots = new WeakMap<Backend, Map<string, Snapshot>>();

export async function listWorkers(backend: Backend, query: WorkersQuery, now: number, offlineAfterSeconds: number): Promise<WorkerList> {
  const needle = query.q !== undefined && query.q !== "" ? query.q.toLowerCase() : null;
  const key = `${query.type === undefined ? "*" : `=${query.type}`}\u0000${needle !== null}`;
  if (query.error_group !== undefined) {
    // one error group: the workers of the group only, read afresh for every page (not kept)
    const [count, refs] = await Promise.all([backend.workerCount(), groupRefs(backend, query.type, query.error_group)]);
    const snap: Snapshot = { at: Date.now(), used: Date.now(), count, entries: await backend.workersIndex(refs, { hostname: needle !== null }), sorted: {} };
    return (await answerFrom(backend, snap, query, needle, now, offlineAfterSeconds)).list;
  }
  if (query.offset > 0) {
    const snap = snapshots.get(backend)?.get(key);
    const t = Date.now();
    if (snap && t - snap.used <= INDEX_SNAPSHOT_MS && t - snap.at <= INDEX_SNAPSHOT_MAX_MS && snap.at <= t) {
      // the fleet's size and the page's rows in one round trip: the rows are wasted only
      // when the size moved (then the index is read again below)
      const plan = planFrom(snap, query, needle, now, offlineAfterSeconds);
      const [count, records] = await Promise.all([backend.workerCount(), readPage(backend, plan)]);
      if (count === snap.count) {
        const answer = await finish(backend, plan, records, needle, now, offlineAfterSeconds);
        if (answer.verified) {
          snap.used = Date.now();
          return answer.list;
        }
      }
    }
  }
  const at = Date.now();
  const [count, refs] = await Promise.all([backend.workerCount(), backend.workerList(query.type)]);
  // In the contract's order without filters, the page is known before the index is read:
  // its rows are asked for at once, behind the index on the same connection, and decoded
  // here while Redis reads the index.
  const early = (query.sort ?? "name") === "name" && query.status === undefined && needle === null && query.limit > 0;
  const index = backend.workersIndex(refs, { hostname: needle !== null });
  const rows = early ? backend.workersRows(page(refs, query)) : null;
  rows?.catch(() => undefined);
  const snap: Snapshot = { at, used: Date.now(), count, entries: await index, sorted: {} };
  let kept = snapshots.get(backend);
  if (!kept) snapshots.set(backend, (kept = new Map()));
  kept.delete(key);
  kept.set(key, snap);
  while (kept.size > SNAPSHOTS_KEPT) kept.delete(kept.keys().next().value!);
  return (await answerFrom(backend, snap, query, needle, now, offlineAfterSeconds, rows !== null ? await rows : undefined)).list;
}

/** What a page shows of an index: filtered, counted, sorted and sliced (no records read yet). */
interface Plan {
  total: number;
  counts: WorkerList["counts"];
  shown: Array<{ entry: WorkerIndexEntry; status: WorkerStatus }>;
  refs: WorkerRef[];
}

/**
 * The page of an index: filter, count, sort, slice, in one pass that allocates only for the
 * rows shown (every page walks the whole index: 10,000 entries, ten times per fleet read).
 */
function planFrom(snap: Snapshot, query: WorkersQuery, needle: string | null, now: number, offlineAfterSeconds: number): Plan {
  const sort = query.sort ?? "name";
  const ranked = sort === "name" ? snap.entries : (snap.sorted[sort] ??= [...snap.entries].sort(comparator(sort)));
  if (needle === null && query.status === undefined) {
    // nothing filtered: the page is a slice, and the counts of the whole index are kept
    // between pages for as long as no worker can have gone offline
    const shown = ranked.slice(query.offset, query.offset + query.limit).map((entry) => ({ entry, status: workerStatus(entry.state, entry.lastSeen, now, offlineAfterSeconds) }));
    return {
      total: ranked.length,
      counts: { ...allCounts(snap, now, offlineAfterSeconds) },
      shown,
      refs: shown.map(({ entry }) => ({ automationType: entry.automationType, workerId: entry.workerId })),
    };
  }
  // counts cover type and q, before status and paging: the filter chips show what each would give
  const counts = emptyWorkerCounts();
  const shown: Plan["shown"] = [];
  const end = query.offset + query.limit;
  let total = 0;
  for (const entry of ranked) {
    if (needle !== null && !matches(entry, needle)) continue;
    // statuses against this request's clock: an index a second old still turns workers offline on time
    const status = workerStatus(entry.state, entry.lastSeen, now, offlineAfterSeconds);
    counts[status] += 1;
    if (query.status !== undefined && status !== query.status) continue;
    if (total >= query.offset && total < end) shown.push({ entry, status });
    total += 1;
  }
  return { total, counts, shown, refs: shown.map(({ entry }) => ({ automationType: entry.automationType, workerId: entry.workerId })) };
}

/**
 * Every entry's status counted at `now`, or the counts kept from an earlier clock when none can
 * differ: a status changes with the clock only when a worker goes offline (`now - last_seen`
 * passing offlineAfterSeconds), so counts taken at `t` hold for every clock from `t` up to the
 * moment the first of the workers not offline then would be.
 */
function allCounts(snap: Snapshot, now: number, offlineAfterSeconds: number): WorkerList["counts"] {
  const kept = snap.counts;
  // the same test as workerStatus's, on the worker closest to going offline (a later last_seen
  // is never nearer: the subtraction is monotonic)
  if (kept && kept.offlineAfterSeconds === offlineAfterSeconds && kept.now <= now && !(now - kept.oldestLive > offlineAfterSeconds)) return kept.counts;
  const counts = emptyWorkerCounts();
  let oldestLive = Infinity;
  for (const entry of snap.entries) {
    const status = workerStatus(entry.state, entry.lastSeen, now, offlineAfterSeconds);
    counts[status] += 1;
    if (status !== "offline" && entry.lastSeen! < oldestLive) oldestLive = entry.lastSeen!;
  }
  snap.counts = { now, offlineAfterSeconds, oldestLive, counts };
  return counts;
}

function readPage(backend: Backend, plan: Plan): Promise<WorkerRow[]> {
  return plan.refs.length > 0 ? backend.workersRows(plan.refs) : Promise.resolve([]);
}

/**
 * The page from an index: full records of the page only (`read`: already read, the index's
 * first `limit` entries from `offset`, in its order). `verified`: every row read afresh
 * agrees with its index entry on what placed it on the page (registration, status, for `q`
 * the hostname).
 */
async function answerFrom(
  backend: Backend,
  snap: Snapshot,
  query: WorkersQuery,
  needle: string | null,
  now: number,
  offlineAfterSeconds: number,
  read?: WorkerRow[],
): Promise<{ list: WorkerList; verified: boolean }> {
  const plan = planFrom(snap, query, needle, now, offlineAfterSeconds);
  return finish(backend, plan, read ?? (await readPage(backend, plan)), needle, now, offlineAfterSeconds);
}

async function finish(
  backend: Backend,
  plan: Plan,
  records: WorkerRow[],
  needle: string | null,
  now: number,
  offlineAfterSeconds: number,
): Promise<{ list: WorkerList; verified: boolean }> {
  const { shown, refs } = plan;
  if (records.length !== shown.length || records.some((r, i) => r.automationType !== refs[i]!.automationType || r.workerId !== refs[i]!.workerId)) {
    throw new Error("worker rows read ahead do not match the page");
  }
  const workers: Worker[] = new Array(records.length);
  let verified = true;
  for (let i = 0; i < records.length; i++) {
    const w = toWorker(records[i]!, now, offlineAfterSeconds);
    workers[i] = w;
    if (verified && !agrees(records[i]!, w, shown[i]!, needle)) verified = false;
  }
  // since when each shown error stands (the watch's error history; one read for the page)
  const since = await lastErrorSince(backend, records);
  for (let i = 0; i < records.length; i++) if (records[i]!.lastError !== null) workers[i] = { ...workers[i]!, last_error_since: since[i] ?? null };
  return { list: { total: plan.total, counts: plan.counts, workers }, verified };
}

function agrees(rec: WorkerRow, row: Worker, at: { entry: WorkerIndexEntry; status: WorkerStatus }, needle: string | null): boolean {
  if (rec.registered !== at.entry.registered || row.status !== at.status) return false;
  if (needle === null) return true;
  const h = rec.hardware?.hostname;
  return matches({ workerId: rec.workerId, hostname: typeof h === "string" ? h : null }, needle);
}

/** The workers of `type` (all types when absent) whose last_error normalises to `group`: state hashes first, so only those are read further. */
async function groupRefs(backend: Backend, type: string | undefined, group: string): Promise<Array<{ automationType: string; workerId: string }>> {
  const refs = await backend.workerList(type);
  const states = await backend.workersState(refs);
  return refs.filter((_, i) => normalizeErrorMessage(states[i]!.lastError) === group);
}

/**
 * Every worker matching `type`, `q` and `error_group` (status aside), with its status, read
 * afresh (the bulk actions' "all matching this filter").
 */
export async function matchingWorkers(
  backend: Backend,
  filter: { type?: string; q?: string; error_group?: string },
  now: number,
  offlineAfterSeconds: number,
): Promise<Array<{ entry: WorkerIndexEntry; status: WorkerStatus }>> {
  const refs = filter.error_group !== undefined ? await groupRefs(backend, filter.type, filter.error_group) : await backend.workerList(filter.type);
  const needle = filter.q !== undefined && filter.q !== "" ? filter.q.toLowerCase() : null;
  const index = await backend.workersIndex(refs, { hostname: needle !== null });
  const entries = index.map((entry) => ({ entry, status: workerStatus(entry.state, entry.lastSeen, now, offlineAfterSeconds) }));
  return needle !== null ? entries.filter(({ entry }) => matches(entry, needle)) : entries;
}

function byName(a: WorkerIndexEntry, b: WorkerIndexEntry): number {
  return byString(a.automationType, b.automationType) || byString(a.workerId, b.workerId);
}

/**
 * `last_seen` (oldest first) and `-last_seen` (newest first) are a console extension, for
 * the /workers page's sort done here rather than over the whole fleet in the browser. An
 * unreadable or missing last_seen counts as the oldest; ties fall back to type, then id.
 */
function comparator(sort: WorkersSort): (a: WorkerIndexEntry, b: WorkerIndexEntry) => number {
  if (sort === "name") return byName;
  const dir = sort === "last_seen" ? 1 : -1;
  return (a, b) => {
    const x = seenKey(a);
    const y = seenKey(b);
    return (x === y ? 0 : x < y ? -dir : dir) || byName(a, b);
  };
}

function seenKey(entry: WorkerIndexEntry): number {
  return entry.lastSeen !== null && Number.isFinite(entry.lastSeen) ? entry.lastSeen : -Infinity;
}

/** `q` matches the worker id or the hostname of its hardware payload, case-insensitively. */
function matches(entry: Pick<WorkerIndexEntry, "workerId" | "hostname">, needle: string): boolean {
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
