// Reading one part of a queue chunk by chunk while it moves (issue 14: the search and the bulk
// jobs). A position alone is not enough: workers pop a pending list from its head, so between
// two chunks every entry moves toward the head by the number popped, and "the next 1000 from
// where the last chunk ended" skips that many. So the cursor also remembers its place by
// content: the last few entries it examined that are still there (anchors, newest last). Each
// read looks for them, and the entries after the newest one found are those not examined yet.
//
// Lists (pending, dead) only lose entries (pops at the head, removals anywhere), gain them at
// the tail, and keep their order: an anchor can only have moved toward the head, so it is
// looked for at or before its last index, window after window back to the head. Found, the
// scan goes on exactly after it, however far the list moved. When every anchor is gone
// (popped with all before them, or removed by another action) the part is read again from its
// head (`lost`): an entry may then be examined twice, never skipped. Entries pushed after the
// part's scan began (from `end` on, kept up to date by the shifts the anchors show and by the
// scan's own removals) are not read, so a redrive never meets its own requeued tasks again
// when they fail back into the dead letters, and a scan ends whatever the producers do.
// Sorted sets (in flight, scheduled) move both ways (by score): their anchors are looked for
// in a window around their last rank, else the set is read again from its lowest rank.
//
// Framework-free: the search (./scan.ts) and the bulk runner (../bulk/runner.ts) share it.
import { sha1Hex, QUEUE_SCAN_MAX, type QueueScanChunk, type QueueScanEntry, type QueueScanPart } from "@fleet/backend";

/** Anchors kept: a scan loses its place only when all of them went meanwhile. */
export const ANCHORS_KEPT = 4;
/** How far before a list anchor's last index the chunk's own read reaches (further back: a read per 2000). */
export const LOOKBACK = 16;
/** A sorted set's anchor is looked for this far below its last rank in the chunk's own read (and above it). */
const SET_LOOKBACK = 500;
/** A set may gain entries below the scan's rank while it reads: it reads this much past its size at the start. */
const SET_SLACK = 1000;

export type Reader = (start: number, count: number) => Promise<QueueScanChunk>;

export interface Anchor {
  /** Its index when it was last read (lists: less the scan's own removals before it). */
  index: number;
  /** Hex SHA-1 of its identity (anchorIdentity): what a resumed scan knows of it. */
  ref: string;
  /** The identity itself, while this process holds it (compared without hashing). */
  key?: Buffer;
}

export interface CursorState {
  /** Oldest first, newest last. Empty: every entry of the part is still to be examined. */
  anchors: Anchor[];
  /** Lists: index of the first entry pushed after the part's scan began; sets: how many entries to examine at most. Null before the first read. */
  end: number | null;
  /** Sets: entries examined so far. */
  count: number;
  /**
   * Lists read with `exactEnd`: the last entries the part held when its scan began (oldest
   * first), found again at each read so that `end` is exact however the list moved.
   */
  tail: Anchor[];
  /** The tail was read (once, at the part's start). */
  tailRead?: boolean;
  /** Times the part was read again from its head because every anchor had gone. */
  lost: number;
}

export const newCursor = (): CursorState => ({ anchors: [], end: null, count: 0, tail: [], lost: 0 });

export const isListPart = (part: QueueScanPart) => part !== "processing" && part !== "scheduled";

/** An entry's identity: its bytes; in flight: its task id and deadline; scheduled: its body and ready time. */
export function anchorIdentity(part: QueueScanPart, e: QueueScanEntry): Buffer {
  if (part === "processing") return Buffer.from(`${e.id ?? ""}\u0000${e.score ?? ""}`);
  if (part === "scheduled") return Buffer.concat([Buffer.from(`${e.score ?? ""}\u0000`), e.body]);
  return e.body;
}

export function anchorOf(part: QueueScanPart, e: QueueScanEntry, index: number): Anchor {
  const key = anchorIdentity(part, e);
  return { index, ref: sha1Hex(key), key };
}

function isAnchor(part: QueueScanPart, a: Anchor, e: QueueScanEntry): boolean {
  const key = anchorIdentity(part, e);
  return a.key ? key.length === a.key.length && key.equals(a.key) : sha1Hex(key) === a.ref;
}

export interface NextChunk {
  /** Entries not examined yet, in order; empty: the part is done. */
  entries: QueueScanEntry[];
  /** The part's length at this read. */
  total: number;
  corrupt: boolean;
  /** This read found none of the anchors: the part was taken up again from its head. */
  lost: boolean;
}

/**
 * The next entries of a part not examined yet (at most `chunk`; fewer where a window ends),
 * `end` brought up to date. The caller then says which it examined and which went (advance).
 */
export async function nextChunk(read: Reader, part: QueueScanPart, state: CursorState, chunk: number, opts: { exactEnd?: boolean } = {}): Promise<NextChunk> {
  const exact = opts.exactEnd === true && isListPart(part);
  const next = await nextEntries(read, part, state, chunk, !exact);
  if (!exact || next.corrupt) return next;
  if (!state.tailRead) {
    // the part's scan begins: its last entries now mark where the entries present then end
    state.tail = await readTail(read, part, next.total);
    state.tailRead = true;
  }
  return { ...next, entries: await cutAtTail(read, part, state, next.entries) };
}

/** The last entries of the part, consecutive (one read; again if the list shrank under it meanwhile). */
async function readTail(read: Reader, part: QueueScanPart, total: number): Promise<Anchor[]> {
  let n = total;
  for (let tries = 0; tries < 3 && n > 0; tries++) {
    const t = await read(Math.max(0, n - ANCHORS_KEPT), Math.min(ANCHORS_KEPT, n));
    if (t.entries.length > 0) return t.entries.map((e) => anchorOf(part, e, e.index));
    n = t.total;
  }
  return [];
}

/**
 * The entries (read together, in order) that come no later than the tail marks: up to the
 * tail's newest entry when it is among them (entries after it, or after an older one whose
 * successor in the tail is gone, came later); all of them when the tail is further on; none
 * when it is before them or gone (taken by the scan, or popped with all before it).
 */
async function cutAtTail(read: Reader, part: QueueScanPart, state: CursorState, entries: QueueScanEntry[]): Promise<QueueScanEntry[]> {
  if (entries.length === 0) return entries;
  const tail = state.tail;
  for (let i = 0; i < entries.length; i++) {
    const k = tail.findIndex((a) => isAnchor(part, a, entries[i]!));
    if (k < 0) continue;
    // the tail's entries were next to each other: follow them as far as they are still there
    let j = i;
    let m = k;
    while (m + 1 < tail.length && j + 1 < entries.length && isAnchor(part, tail[m + 1]!, entries[j + 1]!)) {
      j++;
      m++;
    }
    if (m + 1 === tail.length || j + 1 < entries.length) {
      // the tail's last one still there ends the part: what follows it came later
      state.end = entries[j]!.index + 1;
      return entries.slice(0, j + 1);
    }
    // the chunk ends inside the tail: the rest of it may follow
    return entries;
  }
  // not among them: where is it now?
  const at = await locateTail(read, part, state);
  if (at === null) return [];
  state.end = at + 1;
  // it can only have moved toward the head since the entries were read: still at or after
  // their first one, it was after all of them then
  return at >= entries[0]!.index ? entries : [];
}

/** The index now of the newest entry of the tail still there (each looked for at or before its last index), or null. */
async function locateTail(read: Reader, part: QueueScanPart, state: CursorState): Promise<number | null> {
  if (state.tail.length === 0) return null;
  let hi = Math.max(...state.tail.map((a) => a.index));
  let from = Math.max(0, hi - LOOKBACK);
  let c = await read(from, hi - from + 1);
  for (;;) {
    const hit = findAnchor(part, state.tail, c.entries, true);
    if (hit) {
      const found = c.entries[hit.at]!.index;
      // those after it went; the ones before it are at most where it is now
      state.tail = state.tail.slice(0, state.tail.indexOf(hit.anchor) + 1).map((a) => ({ ...a, index: Math.min(a.index, found) }));
      return found;
    }
    if (from === 0) break;
    hi = from - 1;
    from = Math.max(0, hi - QUEUE_SCAN_MAX + 1);
    c = await read(from, hi - from + 1);
  }
  state.tail = [];
  return null;
}

async function nextEntries(read: Reader, part: QueueScanPart, state: CursorState, chunk: number, bound: boolean): Promise<NextChunk> {
  const list = isListPart(part);
  const size = Math.max(1, Math.min(chunk, QUEUE_SCAN_MAX - SET_LOOKBACK));
  if (state.anchors.length === 0) return fromHead(read, part, state, size, false, bound);
  const newest = state.anchors[state.anchors.length - 1]!;
  let from = Math.max(0, newest.index - (list ? LOOKBACK : SET_LOOKBACK));
  let c = await read(from, Math.min(QUEUE_SCAN_MAX, newest.index - from + 1 + size));
  if (c.corrupt) return { entries: [], total: 0, corrupt: true, lost: false };
  for (;;) {
    const hit = findAnchor(part, state.anchors, c.entries, list);
    if (hit) {
      const found = c.entries[hit.at]!;
      // what went before the anchor since it was read moved the end as much
      // (an exact end is found again by its tail, in its own read: not moved here as well)
      if (list && bound && state.end !== null) state.end -= Math.max(0, hit.anchor.index - found.index);
      let after = c.entries.slice(hit.at + 1);
      if (after.length === 0 && found.index + 1 < Math.min(c.total, state.end ?? c.total)) {
        // the window ended at the anchor: read on from it
        const more = await read(found.index + 1, size);
        if (more.corrupt) return { entries: [], total: 0, corrupt: true, lost: false };
        after = more.entries;
        c = more;
      }
      return { entries: bound ? bounded(part, state, after.slice(0, size)) : after.slice(0, size), total: c.total, corrupt: false, lost: false };
    }
    // not in this window, so further toward the head (a set's: most likely), or gone: the window before it
    if (from === 0) break;
    const hi = from;
    from = Math.max(0, hi - QUEUE_SCAN_MAX);
    c = await read(from, hi - from);
    if (c.corrupt) return { entries: [], total: 0, corrupt: true, lost: false };
  }
  state.lost += 1;
  // the anchors went with all before them (pops), or were removed: at least one entry before the end went
  if (list && state.end !== null) state.end = Math.max(0, state.end - 1);
  return fromHead(read, part, state, size, true, bound);
}

async function fromHead(read: Reader, part: QueueScanPart, state: CursorState, size: number, lost: boolean, bound: boolean): Promise<NextChunk> {
  state.anchors = [];
  const c = await read(0, size);
  if (c.corrupt) return { entries: [], total: 0, corrupt: true, lost };
  if (state.end === null) state.end = isListPart(part) ? c.total : c.total + SET_SLACK;
  return { entries: bound ? bounded(part, state, c.entries) : c.entries, total: c.total, corrupt: false, lost };
}

/**
 * Lists: entries from `end` on were pushed after the part's scan began. Sets (which gain
 * entries at any rank): at most `end` entries in all, as many as the set held at the start
 * and SET_SLACK more, so that a scan ends even while reservations keep coming.
 */
function bounded(part: QueueScanPart, state: CursorState, entries: QueueScanEntry[]): QueueScanEntry[] {
  const end = state.end;
  if (end === null) return entries;
  if (!isListPart(part)) return entries.slice(0, Math.max(0, end - state.count));
  return entries.filter((e) => e.index < end);
}

/** The newest anchor present in the window (lists: at or before its last index; tried there first). */
function findAnchor(part: QueueScanPart, anchors: Anchor[], entries: QueueScanEntry[], list: boolean): { at: number; anchor: Anchor } | null {
  if (entries.length === 0) return null;
  const first = entries[0]!.index;
  for (let a = anchors.length - 1; a >= 0; a--) {
    const anchor = anchors[a]!;
    const exact = anchor.index - first;
    // where it was (entries of a window are contiguous, but a reservation whose body went is left out)
    if (exact >= 0 && exact < entries.length && entries[exact]!.index === anchor.index && isAnchor(part, anchor, entries[exact]!)) return { at: exact, anchor };
    for (let i = entries.length - 1; i >= 0; i--) {
      const e = entries[i]!;
      if (list && e.index > anchor.index) continue;
      if (isAnchor(part, anchor, e)) return { at: i, anchor };
    }
  }
  return null;
}

/**
 * After a chunk: `examined`, the entries handled (in order, from the chunk's start), and
 * `removed`, the indices of those no longer in the part (taken by this scan, found gone).
 * The last examined entries still there become the newest anchors. `unknownFrom`: the index
 * of the first entry whose fate is not known (a bulk take could not find it where it looked):
 * nothing from it on counts as examined, so the next read starts before it.
 */
export function advance(part: QueueScanPart, state: CursorState, examined: readonly QueueScanEntry[], removed: ReadonlySet<number> = new Set(), unknownFrom?: number): void {
  const list = isListPart(part);
  // the last few examined entries still in place (hashed only those: a chunk is up to SEARCH_CHUNK entries)
  const last: Array<{ e: QueueScanEntry; index: number }> = [];
  let removedBefore = 0;
  for (const e of examined) {
    if (unknownFrom !== undefined && e.index >= unknownFrom) break;
    if (removed.has(e.index)) {
      removedBefore += 1;
      continue;
    }
    last.push({ e, index: list ? e.index - removedBefore : e.index });
    if (last.length > ANCHORS_KEPT) last.shift();
  }
  const kept = last.map(({ e, index }) => anchorOf(part, e, index));
  // the scan's own removals come before the end (the anchors' shifts do not show those)
  if (list && state.end !== null) state.end -= removed.size;
  if (!list) state.count += examined.length;
  // none left in place: the older anchors still mark the place (with none, the head does)
  if (kept.length > 0) state.anchors = [...state.anchors, ...kept].slice(-ANCHORS_KEPT);
}

/** The cursor as text, for a job's record: the anchors' refs and indices, the end, the losses. */
export function serializeCursor(state: CursorState): string {
  return JSON.stringify({
    a: state.anchors.map((a) => [a.index, a.ref]),
    e: state.end,
    c: state.count,
    l: state.lost,
    ...(state.tailRead ? { t: state.tail.map((a) => [a.index, a.ref]) } : {}),
  });
}

export function parseCursor(text: string): CursorState {
  try {
    const v = JSON.parse(text) as { a?: unknown; e?: unknown; c?: unknown; l?: unknown; t?: unknown };
    const refs = (list: unknown): Anchor[] =>
      Array.isArray(list)
        ? list.flatMap((x) =>
            Array.isArray(x) && typeof x[0] === "number" && Number.isInteger(x[0]) && typeof x[1] === "string" && /^[0-9a-f]{40}$/.test(x[1]) ? [{ index: x[0], ref: x[1] }] : [],
          )
        : [];
    const end = typeof v.e === "number" && Number.isInteger(v.e) ? v.e : null;
    const int = (x: unknown) => (typeof x === "number" && Number.isInteger(x) && x >= 0 ? x : 0);
    const state: CursorState = { anchors: refs(v.a).slice(-ANCHORS_KEPT), end, count: int(v.c), tail: refs(v.t).slice(-ANCHORS_KEPT), lost: int(v.l) };
    if (Array.isArray(v.t)) state.tailRead = true;
    return state;
  } catch {
    return newCursor();
  }
}
