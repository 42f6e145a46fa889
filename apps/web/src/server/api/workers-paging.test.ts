// listWorkers' counts on later pages (issue 11, point 6): a page of the whole fleet, neither
// filtered nor searched, takes the counts of its index from the last page's walk for as long
// as no worker can have gone offline, and counts afresh once one can.
import { createMemoryBackend } from "@fleet/backend/memory";
import { describe, expect, it } from "vitest";

import { listWorkers } from "./workers";

const OFFLINE_AFTER = 60;

async function fleet(t: number) {
  const b = createMemoryBackend();
  // w1 seen 50 s before t (offline 10 s after t), w2 and w3 at t, w4 never seen
  for (const [id, state, seen] of [
    ["w1", "RUNNING", t - 50],
    ["w2", "IDLE", t],
    ["w3", "RUNNING", t],
  ] as const) {
    await b.workerRegister("scraper", id, { hostname: id });
    await b.workerSetState("scraper", id, state, null, seen);
  }
  await b.workerRegister("scraper", "w4", { hostname: "w4" });
  return b;
}

describe("listWorkers: counts of a later page", () => {
  it("are those of the clock of each page: a worker that went offline between two pages is counted offline", async () => {
    const t = Date.now() / 1000;
    const b = await fleet(t);
    const first = await listWorkers(b, { limit: 2, offset: 0 }, t, OFFLINE_AFTER);
    expect(first.counts).toEqual({ running: 2, idle: 1, error: 0, offline: 1 });
    // still within w1's 60 s: the same counts
    const soon = await listWorkers(b, { limit: 2, offset: 2 }, t + 9, OFFLINE_AFTER);
    expect(soon.counts).toEqual({ running: 2, idle: 1, error: 0, offline: 1 });
    expect(soon.workers.map((w) => w.worker_id)).toEqual(["w3", "w4"]);
    // past it: w1 is offline on this page's clock, also in the counts
    const later = await listWorkers(b, { limit: 2, offset: 2 }, t + 11, OFFLINE_AFTER);
    expect(later.counts).toEqual({ running: 1, idle: 1, error: 0, offline: 2 });
    expect(later.total).toBe(4);
    // a page at an earlier clock than the counts kept (a clock set back) counts afresh
    const back = await listWorkers(b, { limit: 2, offset: 2 }, t, OFFLINE_AFTER);
    expect(back.counts).toEqual({ running: 2, idle: 1, error: 0, offline: 1 });
  });

  it("follow the offline threshold each page is asked with", async () => {
    const t = Date.now() / 1000;
    const b = await fleet(t);
    expect((await listWorkers(b, { limit: 1, offset: 0 }, t, OFFLINE_AFTER)).counts.offline).toBe(1);
    expect((await listWorkers(b, { limit: 1, offset: 1 }, t, 40)).counts).toEqual({ running: 1, idle: 1, error: 0, offline: 2 });
  });

  it("of a filtered page are counted on that page's walk (status and q)", async () => {
    const t = Date.now() / 1000;
    const b = await fleet(t);
    await listWorkers(b, { limit: 1, offset: 0 }, t, OFFLINE_AFTER);
    const running = await listWorkers(b, { status: "running", limit: 1, offset: 1 }, t + 11, OFFLINE_AFTER);
    expect(running.total).toBe(1);
    expect(running.counts).toEqual({ running: 1, idle: 1, error: 0, offline: 2 });
  });
});
