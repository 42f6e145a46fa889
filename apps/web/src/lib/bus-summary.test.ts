import { describe, expect, it } from "vitest";

import { asUnixTime, busSummary } from "./bus-summary";
import { clockTime } from "./format";

describe("busSummary", () => {
  it("reads a stream's emit (a bare unix time) as a new entry with its time and a link", () => {
    expect(busSummary("scraper.emit", 1764400000.25)).toEqual({
      text: `New entry on stream scraper, written at ${clockTime(1764400000.25)}`,
      link: { href: "/streams/scraper", label: "stream scraper" },
    });
  });
  it("summarises another payload on an emit topic like any payload, still linked to the stream", () => {
    expect(busSummary("scraper.emit", { note: "hi" })).toEqual({ text: "note hi", link: { href: "/streams/scraper", label: "stream scraper" } });
  });
  it("reads fleet.config and fleet.admin, linking to the worker or queue", () => {
    expect(busSummary("fleet.config", { automation_type: "scraper", worker_id: "w 1", config_gen: 4 })).toEqual({
      text: "Config of w 1 (scraper) saved: generation 4",
      link: { href: "/workers/scraper/w%201", label: "worker w 1" },
    });
    expect(busSummary("fleet.admin", { action: "dead.requeue", queue: "jobs", requeued: 2 })).toEqual({
      text: "Console: requeued 2 dead letters of jobs",
      link: { href: "/queues/jobs", label: "queue jobs" },
    });
    expect(busSummary("fleet.admin", { action: "pool.item.release", pool: "cookies", item_id: "c1" }).text).toBe("Console: released the claim on c1 (pool cookies)");
    expect(busSummary("fleet.bulk", { id: "j", queue: "jobs", action: "requeue-dead", state: "running", expected: 900, done: 400, missing: 2 })).toEqual({
      text: "Console: bulk job on jobs running: requeued 400 of 900 previewed, 2 gone meanwhile",
      link: { href: "/queues/jobs", label: "queue jobs" },
    });
  });
  it("shows other payloads as their members, times as clock times, and text as text", () => {
    expect(busSummary("x.y", { score: 1764400000.25, rows: 3, note: "hi" }).text).toBe(`score ${clockTime(1764400000.25)} · rows 3 · note hi`);
    expect(busSummary("x.y", "<b>plain</b>")).toEqual({ text: "<b>plain</b>", link: null });
    expect(busSummary("x.y", { a: 1, b: 2, c: 3, d: 4, e: 5, f: 6 }).text).toBe("a 1 · b 2 · c 3 · d 4 · e 5 · +1 more");
    expect(busSummary("x.y", 42).text).toBe("42");
  });
  it("knows a unix time when it sees one", () => {
    expect(asUnixTime(1764400000)).toBe(1764400000);
    expect(asUnixTime(1764400000123)).toBe(1764400000.123);
    expect(asUnixTime(12)).toBeNull();
    expect(asUnixTime("1764400000.5")).toBe(1764400000.5);
  });
});
