// A pool_free rule takes its pool names from the watch's `poolNames` (the app passes the one
// name discovery, src/server/watch/index.ts), never from Backend.poolNames, which walks the
// whole key space: at 1M foreign keys that was a full SCAN on every 10 s tick (issue 11).
import { pyJsonBytes, type Backend } from "@fleet/backend";
import { createMemoryBackend } from "@fleet/backend/memory";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

import { WatchService } from "../watch/service";

describe("pool_free alerts", () => {
  let backend: Backend;
  let walks: number;
  let asked: number;
  let watch: WatchService;

  beforeEach(async () => {
    const inner = createMemoryBackend();
    walks = 0;
    asked = 0;
    // the memory backend, counting the walks of the key space for pool names
    backend = new Proxy(inner, {
      get(target, prop, receiver) {
        if (prop === "poolNames") {
          return () => {
            walks++;
            return target.poolNames();
          };
        }
        const v = Reflect.get(target, prop, receiver);
        return typeof v === "function" ? v.bind(target) : v;
      },
    });
    await backend.poolPut("cookies", "c1", "x", {});
    await backend.poolPut("proxies", "p1", "x", {});
    await backend.poolClaimAny("proxies", {}, 600);
    const { gen } = await backend.alertRulesGet();
    await backend.alertRulesSet(pyJsonBytes({ webhooks: [], rules: [{ id: "few", name: "few free", kind: "pool_free", pool: "*", fewer_than: 1 }] }), gen);
    watch = new WatchService({
      getBackend: async () => backend,
      queueNames: async () => [],
      poolNames: async () => {
        asked++;
        return ["cookies", "proxies"];
      },
      offlineAfterSeconds: 60,
      lockName: "pool-names-test",
      timers: false,
      workerErrors: false,
    });
    await watch.leadership.electNow();
    expect(watch.leadership.isLeader).toBe(true);
  });

  afterEach(async () => {
    await watch.stop();
    await backend.close();
  });

  it("reads the names it is given on each tick and fires for the pool with nothing free, without walking the key space", async () => {
    await watch.tickNow();
    await watch.tickNow();
    expect(asked).toBe(2);
    expect(walks).toBe(0);
    const state = await backend.alertStateRead(10);
    expect([...state.firing.keys()]).toEqual(["few|proxies"]);
  });
});
