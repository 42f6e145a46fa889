import { describe, expect, it } from "vitest";

import { waitFor } from "@/server/events/test/helpers";

import { BUSY, HashGate } from "./hash-gate";

describe("the password hash gate", () => {
  it("runs at most `concurrency` checks at once; the rest wait their turn, each release starting exactly one", async () => {
    // waiters wait up to a minute here: a loaded machine must not make them give up mid-test
    const gate = new HashGate(2, 3, 60_000);
    const releases: Array<() => void> = [];
    let started = 0;
    const job = () =>
      new Promise<string>((resolve) => {
        started++;
        releases.push(() => resolve("done"));
      });
    const running = [gate.run(job), gate.run(job), gate.run(job), gate.run(job), gate.run(job)];
    expect(await gate.run(job)).toBe(BUSY); // 2 running, 3 waiting: no room
    expect(gate.stats()).toMatchObject({ running: 2, waiting: 3 });
    expect(started).toBe(2);
    // release one at a time: each frees exactly one waiter
    for (let i = 0; i < 5; i++) {
      releases.shift()!();
      const finished = i + 1;
      const expected = Math.min(5, 2 + finished);
      await waitFor(() => started === expected && gate.stats().running === expected - finished, { what: `${expected} started` });
      expect(gate.stats()).toMatchObject({ running: expected - finished, waiting: 5 - expected });
    }
    expect(await Promise.all(running)).toEqual(["done", "done", "done", "done", "done"]);
    expect(gate.stats()).toMatchObject({ running: 0, waiting: 0, maxRunning: 2, total: 5 });
  });

  it("a waiter gives up after its wait when nobody releases", async () => {
    const gate = new HashGate(2, 3, 200);
    const releases: Array<() => void> = [];
    const job = () => new Promise<string>((resolve) => releases.push(() => resolve("done")));
    const stuck = [gate.run(job), gate.run(job)];
    const t0 = Date.now();
    expect(await gate.run(job)).toBe(BUSY);
    // by its wait (200 ms), not at once
    expect(Date.now() - t0).toBeGreaterThanOrEqual(190);
    for (const r of releases.splice(0)) r();
    expect(await Promise.all(stuck)).toEqual(["done", "done"]);
  });
});
