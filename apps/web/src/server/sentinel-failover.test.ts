// The console behind Redis Sentinel (one primary, one replica, three sentinels): while the
// primary is gone GET /api/v1/health answers 503 backend_unavailable, never a false 200, and
// once Sentinel promoted the replica it answers 200 again from it, without a restart.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startSentinelSetup, type SentinelSetup } from "@fleet/backend/testing/sentinel";
import { closeBackend } from "@/server/backend";
import { resetServerEnv } from "@/server/env";
import { GET } from "@/app/api/v1/health/route";

describe("the console on a Sentinel-managed Redis", () => {
  let setup: SentinelSetup;
  beforeAll(async () => {
    setup = await startSentinelSetup("fleet-web");
  }, 180_000);
  afterAll(async () => {
    await setup?.stop();
  });
  afterEach(async () => {
    await closeBackend();
    delete process.env.FLEET_BACKEND_URL;
    resetServerEnv();
  });

  it("answers 503 during a failover and 200 again once the replica is promoted, without a restart", async () => {
    process.env.FLEET_BACKEND_URL = setup.url(0);
    resetServerEnv();
    const answers: Array<{ t: number; status: number; ok: unknown; code?: unknown }> = [];
    const ask = async () => {
      const t = Date.now();
      const res = await GET(new Request("http://127.0.0.1:3000/api/v1/health"));
      const body = (await res.json()) as { ok?: unknown; error?: { code?: unknown } };
      answers.push({ t, status: res.status, ok: body.ok, code: body.error?.code });
      return res.status;
    };
    const deadline = Date.now() + 30_000;
    while ((await ask()) !== 200) if (Date.now() > deadline) throw new Error("no 200 before the failover");

    const t0 = Date.now();
    await setup.stopPrimary();
    let recovered: number | null = null;
    // a guard against hanging: how fast Sentinel promotes is its configuration's business (and a loaded machine's)
    while (recovered === null && Date.now() < t0 + 60_000) {
      const status = await ask();
      if (status === 200 && answers.some((a) => a.t >= t0 && a.status === 503)) recovered = Date.now();
      await new Promise((r) => setTimeout(r, 50));
    }
    const during = answers.filter((a) => a.t >= t0 && (recovered === null || a.t < recovered));
    // every answer is either a 503 that says why, or a true 200 (ok)
    for (const a of answers) expect(a.status === 200 ? a.ok === true : a.status === 503 && a.code === "backend_unavailable", JSON.stringify(a)).toBe(true);
    expect(during.some((a) => a.status === 503)).toBe(true);
    expect(recovered, "the console answered 200 again").not.toBeNull();
    expect(await setup.currentPrimaryPort()).toBe(setup.replicaPort);
  }, 120_000);
});
