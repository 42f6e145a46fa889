// Lists by name (issue 11): the names come from the one name discovery (src/server/backend.ts
// opens it), the figures from one pipelined read of those names only. A name whose figures
// show that none of its keys exists any more is left out at once (and forgotten by the
// discovery until something shows it again), so a deletion never waits for the walk.
// Framework-free: the routes, /metrics and the event hub's snapshot (in its worker thread,
// with the names sent along) all use it.
import type { Backend, CounterSummary, ListedKind, LockSummary, PoolSummary, QueueDepths, StreamSummary } from "@fleet/backend";

/** What a reader needs of the discovery: names, and forgetting those found gone. */
export interface NameSource {
  names(kind: ListedKind): Promise<string[]>;
  forget(kind: ListedKind, name: string): void;
}

export interface Figures<T> {
  items: T[];
  /** Names asked about that have no key at all. */
  absent: string[];
}

function isZero(d: QueueDepths): boolean {
  return d.pending.total === 0 && d.processing === 0 && d.scheduled === 0 && d.dead === 0;
}

/** Depths of the named queues; a queue with all zeros is asked once more whether it has any key (a stray `:processing:body`). */
export async function queueFigures(backend: Backend, names: string[], now: number): Promise<Figures<QueueDepths>> {
  if (names.length === 0) return { items: [], absent: [] };
  const depths = await backend.queueDepths(names, now);
  const zero = depths.filter(isZero);
  if (zero.length === 0) return { items: depths, absent: [] };
  const exists = await backend.queuesExist(zero.map((d) => d.name));
  const absent = new Set(zero.filter((_, i) => !exists[i]).map((d) => d.name));
  return { items: depths.filter((d) => !absent.has(d.name)), absent: [...absent] };
}

export async function poolFigures(backend: Backend, names: string[]): Promise<Figures<PoolSummary>> {
  const all = names.length > 0 ? await backend.poolSummaries(names) : [];
  // an empty hash does not exist in Redis
  // an empty hash does not exist in Redis; a key of another type (corrupt) does, and is shown as such
  const present = (p: PoolSummary) => p.size > 0 || (p.corrupt?.length ?? 0) > 0;
  return { items: all.filter(present), absent: all.filter((p) => !present(p)).map((p) => p.name) };
}

export async function streamFigures(backend: Backend, names: string[]): Promise<Figures<StreamSummary>> {
  const all = names.length > 0 ? await backend.streamSummaries(names) : [];
  const present = (s: StreamSummary) => s.length > 0 || (s.corrupt?.length ?? 0) > 0;
  return { items: all.filter(present), absent: all.filter((s) => !present(s)).map((s) => s.name) };
}

function withAbsent<T extends { name: string }>(names: string[], items: T[]): Figures<T> {
  const present = new Set(items.map((i) => i.name));
  return { items, absent: names.filter((n) => !present.has(n)) };
}

export async function lockFigures(backend: Backend, names: string[]): Promise<Figures<LockSummary>> {
  return withAbsent(names, names.length > 0 ? await backend.lockSummaries(names) : []);
}

export async function counterFigures(backend: Backend, names: string[]): Promise<Figures<CounterSummary>> {
  return withAbsent(names, names.length > 0 ? await backend.counterSummaries(names) : []);
}

async function live<T>(backend: Backend, source: NameSource, kind: ListedKind, read: (names: string[]) => Promise<Figures<T>>): Promise<T[]> {
  // Every answer comes from a Redis that answered this request: with no name there is no
  // figure to read, and a discovery that could not walk a down Redis knows no name, so "none"
  // would be a false 200. One DBSIZE (O(1)) beside the names proves it, and fails fast (503)
  // while the discovery may still be waiting for a pass.
  const [names] = await Promise.all([source.names(kind), backend.keyCount()]);
  if (names.length === 0) return [];
  const { items, absent } = await read(names);
  for (const name of absent) source.forget(kind, name);
  return items;
}

/** Every queue that has any key, sorted by name. */
export function liveQueues(backend: Backend, source: NameSource, now: number): Promise<QueueDepths[]> {
  return live(backend, source, "queue", (names) => queueFigures(backend, names, now));
}

export function livePools(backend: Backend, source: NameSource): Promise<PoolSummary[]> {
  return live(backend, source, "pool", (names) => poolFigures(backend, names));
}

export function liveStreams(backend: Backend, source: NameSource): Promise<StreamSummary[]> {
  return live(backend, source, "stream", (names) => streamFigures(backend, names));
}

export function liveLocks(backend: Backend, source: NameSource): Promise<LockSummary[]> {
  return live(backend, source, "lock", (names) => lockFigures(backend, names));
}

export function liveCounters(backend: Backend, source: NameSource): Promise<CounterSummary[]> {
  return live(backend, source, "counter", (names) => counterFigures(backend, names));
}
