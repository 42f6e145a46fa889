// The worker feed between the live-events loop and the watch's error recorder: epochs, and
// the bound on changes nobody takes.
import { describe, expect, it } from "vitest";

import type { WorkersChange } from "./change-detector";
import { WorkerChangeFeed } from "./worker-feed";

const change = (id: string): WorkersChange => ({ changed: [], removed: [{ automation_type: "scraper", worker_id: id }] });

describe("WorkerChangeFeed", () => {
  it("holds changes only within an epoch, hands them over once, oldest first", () => {
    const feed = new WorkerChangeFeed();
    feed.push(change("before"));
    expect(feed.epoch()).toBeNull();
    expect(feed.take()).toEqual([]);
    feed.begin();
    const e = feed.epoch();
    expect(e).not.toBeNull();
    feed.push(change("a"));
    feed.push(change("b"));
    expect(feed.take().map((c) => c.removed[0]!.worker_id)).toEqual(["a", "b"]);
    expect(feed.take()).toEqual([]);
    feed.gap();
    expect(feed.epoch()).toBeNull();
    feed.push(change("lost"));
    feed.begin();
    expect(feed.epoch()).toBeGreaterThan(e!);
    expect(feed.take()).toEqual([]);
  });

  it("drops what nobody takes past its bound and starts a new epoch, so a reader reads the fleet again", () => {
    const feed = new WorkerChangeFeed(3);
    feed.begin();
    const e = feed.epoch();
    for (const id of ["a", "b", "c", "d"]) feed.push(change(id));
    expect(feed.epoch()).toBe(e! + 1);
    expect(feed.take().map((c) => c.removed[0]!.worker_id)).toEqual(["d"]);
  });
});
