// The pending-list tracker against a simulated FIFO list: what left between ticks and the
// oldest wait, exact while marks span the ticks, lower bounds (flagged) when they do not.
import type { PendingListWatch } from "@fleet/backend";
import { describe, expect, it } from "vitest";

import { MAX_MARKS, PendingListTracker } from "./sightings";

/** A FIFO list plus what queue-probe-1.lua would answer for it. */
class FakeList {
  items: Array<{ body: Buffer; pushedAt: number }> = [];
  private n = 0;
  push(k: number, at: number) {
    for (let i = 0; i < k; i++) this.items.push({ body: Buffer.from(`task-${this.n++}`), pushedAt: at });
  }
  pop(k: number) {
    this.items.splice(0, k);
  }
  probe(marks: Buffer[], maxScan = 1000): PendingListWatch {
    const tail = this.items[this.items.length - 1]?.body ?? null;
    const scan = this.items.slice(0, maxScan);
    let found: PendingListWatch["found"] = null;
    for (let i = 0; i < marks.length && found === null; i++) {
      const position = scan.findIndex((x) => x.body.equals(marks[i]!));
      if (position >= 0) found = { mark: i, position };
    }
    return { length: this.items.length, tail, tailBytes: tail?.length ?? 0, found };
  }
}

function step(t: PendingListTracker, list: FakeList, now: number, maxScan?: number) {
  return t.update(list.probe(t.probe(), maxScan), now);
}

describe("PendingListTracker", () => {
  it("counts exactly what left while marks span the ticks, and the wait of the head to within one tick", () => {
    const list = new FakeList();
    const t = new PendingListTracker(1000);
    list.push(50, 1000);
    // first tick: nothing known yet about what was there before
    expect(step(t, list, 1005)).toEqual({ left: 0, leftAtLeast: false, oldest: null });
    let now = 1005;
    for (let i = 0; i < 20; i++) {
      list.pop(7);
      list.push(5, now + 5);
      now += 10;
      const u = step(t, list, now);
      expect(u.left).toBe(7);
      expect(u.leftAtLeast).toBe(false);
      const trueWait = now - list.items[0]!.pushedAt;
      expect(u.oldest).not.toBeNull();
      expect(u.oldest!).toBeLessThanOrEqual(trueWait);
      // tasks pushed before tracking began count from the first tick (at least); later ones within a tick
      if (list.items[0]!.pushedAt > 1005) expect(trueWait - u.oldest!).toBeLessThanOrEqual(10);
    }
  });

  it("a stuck list (nobody reserving) ages steadily and counts nothing as left", () => {
    const list = new FakeList();
    const t = new PendingListTracker(1000);
    list.push(3, 0);
    step(t, list, 10);
    list.push(1, 15);
    expect(step(t, list, 20)).toEqual({ left: 0, leftAtLeast: false, oldest: 10 });
    expect(step(t, list, 3620)).toEqual({ left: 0, leftAtLeast: false, oldest: 3610 });
  });

  it("a list emptied between ticks: at least the remembered tasks left, flagged; an empty list has no wait", () => {
    const list = new FakeList();
    const t = new PendingListTracker(1000);
    list.push(10, 0);
    step(t, list, 10);
    list.pop(10);
    list.push(4, 15);
    list.pop(4);
    const u = step(t, list, 20);
    expect(u).toEqual({ left: 10, leftAtLeast: true, oldest: null });
  });

  it("everything remembered left but new tasks wait: those are under a tick old", () => {
    const list = new FakeList();
    const t = new PendingListTracker(1000);
    list.push(5, 0);
    step(t, list, 10);
    list.pop(5);
    list.push(3, 15);
    expect(step(t, list, 20)).toEqual({ left: 5, leftAtLeast: true, oldest: 0 });
  });

  it("keeps at most MAX_MARKS marks and still measures a long backlog's age from its oldest one", () => {
    const list = new FakeList();
    const t = new PendingListTracker(100_000);
    let now = 0;
    list.push(1, now);
    step(t, list, now);
    for (let i = 0; i < 500; i++) {
      now += 10;
      list.push(1, now - 1);
      step(t, list, now);
      expect(t.markCount).toBeLessThanOrEqual(MAX_MARKS);
    }
    // nothing was reserved: the head is the very first task, 5000 s ago
    const u = step(t, list, now + 10);
    expect(u.oldest).toBe(now + 10);
    // drain 400 of 501: the head's age is measured from the nearest surviving mark (thinned spacing)
    list.pop(400);
    const after = step(t, list, now + 20);
    expect(after.left).toBeGreaterThan(0);
    const trueWait = now + 20 - list.items[0]!.pushedAt;
    expect(after.oldest!).toBeLessThanOrEqual(trueWait);
    expect(trueWait - after.oldest!).toBeLessThanOrEqual(trueWait * 0.1 + 20);
  });

  it("a long list whose marks lie past the scan: the age holds (within a tick), what left is flagged unknown", () => {
    const list = new FakeList();
    const t = new PendingListTracker(5);
    list.push(3, 0);
    step(t, list, 10, 5);
    list.push(10, 15); // the mark (task-2) stays at position 2
    list.pop(2);
    list.push(0, 20);
    let u = step(t, list, 20, 5);
    expect(u).toMatchObject({ left: 2, oldest: 10 });
    // push far more: the oldest mark is still found near the head
    list.push(100, 25);
    u = step(t, list, 30, 5);
    expect(u).toMatchObject({ left: 0, oldest: 20 });
    // the head mark leaves and the next one (task-12, seen at 20) sits at position 9, past the
    // scan of 5: ambiguous, so what left is unknown (flagged) and the age is taken from the
    // oldest mark, an overestimate of at most the spacing of marks (one tick here)
    list.pop(1);
    u = step(t, list, 40, 5);
    expect(u.leftAtLeast).toBe(true);
    const trueWait = 40 - list.items[0]!.pushedAt;
    expect(u.oldest! - trueWait).toBeLessThanOrEqual(10);
  });

  it("bodies over the mark limit are never remembered", () => {
    const t = new PendingListTracker(1000);
    const big = Buffer.alloc(5000, 0x61);
    t.update({ length: 1, tail: big, tailBytes: big.length, found: null }, 0);
    expect(t.probe()).toEqual([]);
  });
});
