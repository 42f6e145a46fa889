import { describe, expect, it } from "vitest";
import { BUSY, HashGate } from "./hash-gate";

describe("the password hash gate", () => {
  it("runs at most `concurrency` checks at once; the rest wait their turn or give up", async () => {
    const gate = new HashGate(2, 3, 200);
    const releases: Array<() => void> = [];
    const job = () => new Promise<string>((resolve) => releases.push(() => resolve("done")));
    const running = [gate.run(job), gate.run(job), gate.run(job), gate.run(job), gate.run(job)];
    expect(await gate.run(job)).toBe(BUSY); // 2 running, 3 waiting: no room
    expect(gate.stats()).toMatchObject({ running: 2, waiting: 3 });
    // release one at a time: each frees exactly one waiter
    for (let i = 0; i < 5; i++) {
      await new Promise((r) => setImmediate(r));
      releases.shift()!();
    }
    expect(await Promise.all(running)).toEqual(["done", "done", "done", "done", "done"]);
    expect(gate.stats()).toMatchObject({ running: 0, waiting: 0, maxRunning: 2, total: 5 });
    // nobody releases: a waiter gives up after waitMs
    const stuck = [gate.run(job), gate.run(job)];
    expect(await gate.run(job)).toBe(BUSY);
    for (const r of releases.splice(0)) r();
    await Promise.all(stuck);
  });
});
