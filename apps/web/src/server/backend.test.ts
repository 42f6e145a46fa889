import { afterEach, describe, expect, it } from "vitest";

import { closeBackend, getBackend, isDemoUrl } from "./backend";
import { resetServerEnv } from "./env";

async function switchBackendUrl(url: string): Promise<void> {
  await closeBackend();
  process.env.FLEET_BACKEND_URL = url;
  resetServerEnv();
}

afterEach(async () => {
  await closeBackend();
  delete process.env.FLEET_BACKEND_URL;
  resetServerEnv();
});

describe("getBackend", () => {
  it("hands every caller the same backend until it is closed", async () => {
    await switchBackendUrl("memory://backend-test");
    const [a, b] = await Promise.all([getBackend(), getBackend()]);
    expect(a).toBe(b);
    expect(await getBackend()).toBe(a);
    await closeBackend();
    expect(await getBackend()).not.toBe(a);
  });

  it("keeps the cache on globalThis so a re-evaluated module finds it", async () => {
    await switchBackendUrl("memory://backend-test");
    const backend = await getBackend();
    const slot = (globalThis as { __fleetBackend?: { url: string } }).__fleetBackend;
    expect(slot?.url).toBe("memory://backend-test");
    expect(backend.kind).toBe("memory");
  });

  it("opens a new backend when the URL changes", async () => {
    await switchBackendUrl("memory://one");
    const one = await getBackend();
    process.env.FLEET_BACKEND_URL = "memory://two";
    resetServerEnv();
    const two = await getBackend();
    expect(two).not.toBe(one);
    expect(two.url).toBe("memory://two");
  });

  it("starts the demo fleet for memory://demo only", async () => {
    await switchBackendUrl("memory://empty");
    expect(await (await getBackend()).workerList()).toEqual([]);

    await switchBackendUrl("memory://demo");
    const demo = await getBackend();
    expect((await demo.workerList()).length).toBeGreaterThan(0);
  });

  it("recognises the demo URL", () => {
    expect(isDemoUrl("memory://demo")).toBe(true);
    expect(isDemoUrl("MEMORY://demo/")).toBe(true);
    expect(isDemoUrl("memory://demo2")).toBe(false);
    expect(isDemoUrl("redis://demo")).toBe(false);
  });
});
