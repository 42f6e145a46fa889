// The demo fleet on the memory backend with short timings: everything the console shows is there.
import { afterAll, describe, expect, it } from "vitest";
import { isJsonObject, parseJsonBytes } from "@fleet/backend";
import { createMemoryBackend } from "@fleet/backend/memory";
import { DEMO_HOSTS, startDemoFleet, type DemoFleet } from "../src/demo/index";
import { waitUntil } from "./helpers";

describe("demo fleet", () => {
  const backend = createMemoryBackend("memory://demo-test");
  let fleet: DemoFleet | null = null;
  afterAll(async () => {
    await fleet?.stop();
    await backend.close();
  });

  // The ERROR phase must outlast three crashes with their backoff (250 ms, then 500 ms, plus
  // each run's own time): 1.5 s phases sometimes ended before the third crash.
  it("runs a dozen workers over three automations, with a flapping and a silent host, seeded history and dead letters", { timeout: 90_000 }, async () => {
    fleet = await startDemoFleet(backend, { heartbeatMs: 200, producerIntervalMs: 100, silentAfterMs: 600, flapPeriodMs: 4000 });
    const refs = await backend.workerList();
    expect(refs).toHaveLength(12);
    expect(new Set(refs.map((r) => r.automationType))).toEqual(new Set(["scraper", "cf-cookies", "enricher"]));

    const catalog = await backend.catalogAll();
    expect([...catalog.keys()].sort()).toEqual(["cf-cookies", "enricher", "scraper"]);
    for (const doc of catalog.values()) {
      const parsed = parseJsonBytes(doc);
      expect(parsed.ok && isJsonObject(parsed.value) && isJsonObject(parsed.value.config)).toBe(true);
    }

    const workers = await backend.workersGet(refs);
    for (const w of workers) {
      expect(w.historyLen).toBeGreaterThanOrEqual(60);
      expect(w.configGen).toBe(1);
      expect(w.hardware?.simulated).toBe(true);
    }
    expect(new Set(workers.map((w) => w.hardware?.hostname)).size).toBe(12);
    expect(await backend.dlqLength("scraper")).toBeGreaterThanOrEqual(7);

    // the flapping host turns ERROR with a last_error, then RUNNING again
    const flapper = DEMO_HOSTS.find((h) => h.flaps)!;
    const erred = await waitUntil(
      async () => {
        const w = await backend.workerGet(flapper.type, flapper.id);
        return w?.state === "ERROR" ? w : null;
      },
      20_000,
      "the flapping host to turn ERROR",
    );
    expect(erred.lastError).toBeTruthy();
    await waitUntil(async () => (await backend.workerGet(flapper.type, flapper.id))?.state === "RUNNING", 20_000, "the flapping host to recover");

    // the silent host stopped heartbeating, and its last_seen is already far behind
    const silent = DEMO_HOSTS.find((h) => h.silent)!;
    const s = await backend.workerGet(silent.type, silent.id);
    expect(Date.now() / 1000 - (s?.lastSeen ?? 0)).toBeGreaterThan(45);
    const beats = fleet.workers.find((w) => w.workerId === silent.id)!.snapshot();
    expect(beats.phase).toBe("killed");

    // work flows: scraper outputs, cookie events, enrichments, a live pool
    await waitUntil(async () => (await backend.streamLength("scraper")) > 3, 8000, "scraper output");
    await waitUntil(async () => (await backend.streamLength("cf-cookies")) > 3, 8000, "cookie events");
    await waitUntil(async () => (await backend.streamLength("enricher")) > 1, 8000, "enrichments");
    expect((await backend.poolList("cf-cookies")).length).toBeGreaterThan(0);
    expect(await backend.counterGet("scraper:pages")).toBeGreaterThan(0);

    await fleet.stop();
    const after = await backend.workersGet(refs.filter((r) => r.workerId !== silent.id));
    expect(after.every((w) => w.state === "IDLE")).toBe(true);
  });
});
