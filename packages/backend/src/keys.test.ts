import { describe, expect, it } from "vitest";

import { QUEUE_SUFFIXES, automationTypeProblem, keys, poolNameOfKey, poolNameProblem, queueNameOfKey, queueNameProblem, workerKeyTwins, WORKER_ALL_INDEX } from "./keys";

describe("names that would build another structure's keys", () => {
  it("a queue name ending in a queue suffix names another queue's list", () => {
    for (const suffix of QUEUE_SUFFIXES) {
      const problem = queueNameProblem(`jobs:${suffix}`);
      expect(problem, suffix).toContain("of queue 'jobs'");
      // and it really is: every key the name builds belongs to queue "jobs" or to a name refused the same way
      expect(queueNameOfKey(keys.queue(`jobs:${suffix}`))).toBe("jobs");
    }
    expect(queueNameProblem("jobs:dead")).toBe("'jobs:dead' cannot be a queue: fleet:queue:jobs:dead is the dead-letter list of queue 'jobs'");
    expect(queueNameProblem("x:processing:body")).toContain("reserved-body hash of queue 'x'");
    for (const ok of ["jobs", "other:q", "a:high:b", "dead", "high", "x:deadline", "ns:jobs.v2", "ключ"]) expect(queueNameProblem(ok), ok).toBeNull();
    expect(queueNameProblem("")).not.toBeNull();
  });

  it("no two usable queue names share a key", () => {
    const names = ["a", "a:b", "b", "a:x:high:y", "q", "q:2", "x:deadline", ":dead", "high"];
    const owner = new Map<string, string>();
    for (const n of names) {
      expect(queueNameProblem(n), n).toBeNull();
      for (const k of [keys.queue(n), keys.queueHigh(n), keys.queueLow(n), keys.queueProcessing(n), keys.queueProcessingBody(n), keys.queueScheduled(n), keys.queueDead(n)]) {
        expect(owner.get(k) ?? n, k).toBe(n);
        owner.set(k, n);
        expect(queueNameOfKey(k), k).toBe(n);
      }
    }
  });

  it("a pool name holding or ending in ':claim' names another pool's claim keys", () => {
    expect(poolNameProblem("proxies:claim:x")).toBe("'proxies:claim:x' cannot be a pool: fleet:pool:proxies:claim:x is a claim key of pool 'proxies'");
    expect(poolNameProblem("proxies:claim")).toContain("claim keys of pool 'proxies'");
    // pool "proxies:claim" item "x" and pool "proxies" item "claim:x" would share a claim key
    expect(keys.poolClaim("proxies:claim", "x")).toBe(keys.poolClaim("proxies", "claim:x"));
    for (const ok of ["proxies", "proxies:eu", "claim", "claim:x", "a:claimed", "a*"]) expect(poolNameProblem(ok), ok).toBeNull();
    expect(poolNameOfKey("fleet:pool:proxies:claim")).toBeNull();
    expect(poolNameOfKey("fleet:pool:proxies:eu")).toBe("proxies:eu");
  });

  it("an automation type 'all' or holding '|' cannot have a worker index of its own", () => {
    expect(keys.workerTypeIndex("all")).toBe(WORKER_ALL_INDEX);
    expect(automationTypeProblem("all")).toContain("wkrs:all is the index of every worker");
    expect(automationTypeProblem("a|b")).toContain("first '|'");
    for (const ok of ["scraper", "cf-cookies", "ns:scraper", "All", "all:x"]) expect(automationTypeProblem(ok), ok).toBeNull();
  });

  it("lists the workers that share a worker's keys", () => {
    expect(workerKeyTwins("t", "w")).toEqual([]);
    expect(workerKeyTwins("a", "b:c")).toEqual([{ automationType: "a:b", workerId: "c" }]);
    expect(workerKeyTwins("a:b", "c")).toEqual([{ automationType: "a", workerId: "b:c" }]);
    expect(workerKeyTwins("a", "b:c:d")).toEqual([
      { automationType: "a:b", workerId: "c:d" },
      { automationType: "a:b:c", workerId: "d" },
    ]);
    for (const twin of workerKeyTwins("a", "b:c:d")) expect(keys.worker(twin.automationType, twin.workerId, "config")).toBe(keys.worker("a", "b:c:d", "config"));
  });
});
