import net from "node:net";

import { testRedisUrl } from "@fleet/backend/testing/redis-dbs";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";

import { closeBackend } from "@/server/backend";
import { resetServerEnv } from "@/server/env";

import { HEALTH_UNAVAILABLE_MESSAGE } from "@/server/health";

import { GET } from "./route";

const REDIS_TEST_URL = process.env.REDIS_TEST_URL;

async function switchBackendUrl(url: string): Promise<void> {
  await closeBackend();
  process.env.FLEET_BACKEND_URL = url;
  resetServerEnv();
}

async function timedGet(): Promise<{ res: Response; body: any; ms: number; logged: string[] }> {
  const logged: string[] = [];
  const warn = vi.spyOn(console, "warn").mockImplementation((...args: unknown[]) => void logged.push(args.map(String).join(" ")));
  try {
    const started = performance.now();
    const res = await GET(new Request("http://127.0.0.1:3000/api/v1/health"));
    const body: unknown = await res.json();
    return { res, body, ms: performance.now() - started, logged };
  } finally {
    warn.mockRestore();
  }
}

afterEach(async () => {
  await closeBackend();
  delete process.env.FLEET_BACKEND_URL;
  resetServerEnv();
});

describe("GET /api/v1/health", () => {
  it("needs REDIS_TEST_URL (CI always sets it)", () => {
    expect(REDIS_TEST_URL, "set REDIS_TEST_URL, e.g. redis://127.0.0.1:6390/0").toMatch(/^redis:\/\//);
  });

  it("answers 200 with the memory backend", async () => {
    await switchBackendUrl("memory://health-test");
    const { res, body } = await timedGet();
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(body).toMatchObject({ ok: true, backend: "memory" });
    expect(typeof body.redis.version).toBe("string");
    expect(typeof body.redis.latency_ms).toBe("number");
    expect(body.redis).toHaveProperty("aof_enabled");
    expect(body.redis).toHaveProperty("used_memory_bytes");
  });

  it("answers 200 with a real Redis and reports its version", async () => {
    await switchBackendUrl(testRedisUrl("apps/web/src/app/api/v1/health/route.test.ts"));
    const { res, body } = await timedGet();
    expect(res.status).toBe(200);
    expect(body.ok).toBe(true);
    expect(body.backend).toBe("redis");
    expect(body.redis.version).toMatch(/^\d+\.\d+/);
    expect(body.redis.latency_ms).toBeGreaterThanOrEqual(0);
    expect(typeof body.redis.aof_enabled).toBe("boolean");
    expect(body.redis.used_memory_bytes).toBeGreaterThan(0);
  });

  it("answers 503 backend_unavailable when Redis refuses, by the connect timeout, saying nothing of the infrastructure", async () => {
    // Port 1 on loopback: nothing listens there, so the connection is refused at once.
    await switchBackendUrl("redis://admin:s3cret@pw@127.0.0.1:1/0");
    const { res, body, ms, logged } = await timedGet();
    expect(res.status).toBe(503);
    expect(body.error.code).toBe("backend_unavailable");
    expect(body.error.message).toBe(HEALTH_UNAVAILABLE_MESSAGE);
    // anybody may ask: no password, user, host or port
    for (const secret of ["s3cret", "pw@", "admin", "127.0.0.1", ":1", "redis://"]) expect(JSON.stringify(body)).not.toContain(secret);
    // which timeout fired: the client's connect timeout (the log says why), not the health check's backstop
    expect(logged.join("\n")).toMatch(/no connection within 1500 ms \(.*ECONNREFUSED/);
    expect(logged.join("\n")).not.toMatch(/no answer within/);
    expect(ms).toBeLessThan(15_000); // a guard against hanging, not a latency claim
  });

  describe("when Redis accepts connections but never answers", () => {
    const sockets = new Set<net.Socket>();
    const silent = net.createServer((socket) => {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
    });

    afterAll(async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    });

    it("still answers 503, by the connect timeout", async () => {
      await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
      const { port } = silent.address() as net.AddressInfo;
      await switchBackendUrl(`redis://:hang-pw@127.0.0.1:${port}/0`);
      const { res, body, ms, logged } = await timedGet();
      expect(res.status).toBe(503);
      expect(body.error.code).toBe("backend_unavailable");
      expect(body.error.message).toBe(HEALTH_UNAVAILABLE_MESSAGE);
      for (const secret of ["hang-pw", "127.0.0.1", String(port)]) expect(JSON.stringify(body)).not.toContain(secret);
      // the connect timeout (1500 ms) fired before the health check's backstop (1750 ms)
      expect(logged.join("\n")).toMatch(/no connection within 1500 ms/);
      expect(logged.join("\n")).not.toMatch(/no answer within/);
      expect(ms).toBeGreaterThanOrEqual(1450);
      expect(ms).toBeLessThan(15_000); // a guard against hanging, not a latency claim
    });
  });
});
