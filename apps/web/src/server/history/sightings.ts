// How the history writer learns, without any counter from Fleet, how many tasks left a
// pending list and how long its oldest task has waited. Fleet pushes at a list's tail and
// reserves at its head (FIFO). Each tick the writer remembers the tail it saw ("a mark", with
// the time and the list's length then) and asks where the oldest remembered mark now sits
// (LPOS from the head, queue-probe-1.lua). Counting entries as they leave the head, a mark
// seen at the tail when `popped` had left and L were in the list is entry popped+L-1; found
// later at position p, popped has become (popped+L-1) - p. So:
//
//   - tasks that left the head between two ticks = how far the oldest mark moved;
//   - the head was pushed before that mark was seen, so it has waited at least now - t
//     (exact to about one tick while marks are dense; a lower bound in every case).
//
// When no mark is found (every remembered task left, or the list was empty), what left is
// known only as a lower bound (the fall in length), and is flagged so. Marks are capped
// (thinned by half, first and last kept) and bodies over MAX_MARK_BYTES are not remembered.
// Pure and in memory: a new leader starts with no marks (see README, "Queue history").
import type { PendingListWatch } from "@fleet/backend";

export interface Mark {
  body: Buffer;
  /** Unix seconds when the writer saw it at the tail. */
  seenAt: number;
  /** Its number among everything that ever left this list's head, as counted by `popped`. */
  index: number;
}

export const MAX_MARKS = 64;
/** Marks sent per probe: the oldest ones; the rest wait until those have left. */
export const PROBE_MARKS = 8;
export const MAX_MARK_BYTES = 4096;

export interface ListUpdate {
  /** Entries that left the head since the last update. */
  left: number;
  /** True when `left` is only a lower bound. */
  leftAtLeast: boolean;
  /** Seconds the head has waited, at least; null when not known (no mark yet, or empty). */
  oldest: number | null;
}

export class PendingListTracker {
  private marks: Mark[] = [];
  /** Entries counted out of the head so far (our own count, from 0 when tracking began). */
  private popped = 0;
  private length = 0;
  private started = false;

  constructor(private readonly maxScan: number) {}

  /** What to send with the next probe. */
  probe(): Buffer[] {
    return this.marks.slice(0, PROBE_MARKS).map((m) => m.body);
  }

  get markCount(): number {
    return this.marks.length;
  }

  update(w: PendingListWatch, now: number): ListUpdate {
    let left = 0;
    let atLeast = false;
    let oldest: number | null = null;
    const hadMarks = this.marks.length > 0;

    if (w.found !== null) {
      const mark = this.marks[w.found.mark]!;
      // Marks before the one found have left the list.
      this.marks = this.marks.slice(w.found.mark);
      const popped = mark.index - w.found.position;
      left = Math.max(0, popped - this.popped);
      this.popped = Math.max(this.popped, popped);
      oldest = Math.max(0, now - mark.seenAt);
    } else if (hadMarks && w.length > this.maxScan) {
      // Not found within the scan of a long list: the oldest mark may still be there, past
      // the scan. Keep them; the head is at least as old as the oldest mark (when it is
      // still there), and what left is unknown.
      oldest = Math.max(0, now - this.marks[0]!.seenAt);
      atLeast = true;
    } else {
      // Every remembered entry left (or there were none): at least those did, and at least
      // the fall in length.
      const newest = this.marks[this.marks.length - 1];
      const atLeastPopped = newest ? newest.index + 1 : this.popped + Math.max(0, this.length - w.length);
      left = Math.max(0, atLeastPopped - this.popped);
      this.popped = Math.max(this.popped, atLeastPopped);
      this.marks = [];
      // Flagged when the list held tasks at the last tick and they could not be followed. A
      // list empty at both ticks is not flagged, though a task pushed and reserved between
      // two ticks is never seen (README, "Queue history": what the figures cannot see).
      atLeast = this.started && (hadMarks || this.length > 0);
      // The head came after every mark (or the list was empty at the last tick): it was
      // pushed since the last tick, so its wait is under one tick. With nothing seen before
      // (the first tick) the wait is not known.
      oldest = w.length > 0 && (hadMarks || (this.started && this.length === 0)) ? 0 : null;
    }

    // Remember this tick's tail, unless it is the newest mark already (nothing was pushed)
    // or too long to send back.
    if (w.length > 0 && w.tail !== null && w.tail.length <= MAX_MARK_BYTES) {
      const newest = this.marks[this.marks.length - 1];
      if (!newest?.body.equals(w.tail)) {
        this.marks.push({ body: Buffer.from(w.tail), seenAt: now, index: this.popped + w.length - 1 });
        if (this.marks.length > MAX_MARKS) this.thin();
      }
    }
    if (w.length === 0) this.marks = [];
    this.length = w.length;
    this.started = true;
    return { left, leftAtLeast: atLeast, oldest: w.length > 0 ? oldest : null };
  }

  /** Keeps the first and the last mark and every other one between: spacing doubles, span stays. */
  private thin(): void {
    const kept = this.marks.filter((_, i) => i === 0 || i === this.marks.length - 1 || i % 2 === 0);
    this.marks = kept;
  }
}
