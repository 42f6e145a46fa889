import net from "node:net";

import { afterAll, afterEach, describe, expect, it } from "vitest";

import * as workers from "@/app/api/v1/workers/route";
import * as tasks from "@/app/api/v1/automations/[type]/tasks/route";
import { closeBackend } from "@/server/backend";

import { switchBackendUrl, type Harness } from "./harness";
import { endpoints, handlerOf, urlOf } from "./route-walk";

/** A body each mutation accepts, so that it gets as far as the backend. */
export const BODIES: Record<string, unknown> = {
  "PATCH /v1/automations/[type]/config": { slots: 1 },
  "POST /v1/automations/[type]/tasks": { payload: {} },
  "PUT /v1/counters/[name]": { value: 1 },
  "PUT /v1/kv/[ns]/[key]": { value: 1 },
  "POST /v1/queues/[name]/dead/delete": { all: true },
  "POST /v1/queues/[name]/dead/requeue": { all: true },
  "PATCH /v1/workers/[type]/[id]/config": { slots: 1 },
  "PUT /v1/workers/[type]/[id]/config": { slots: 1 },
  "PUT /v1/alerts/rules": { webhooks: [], rules: [] },
  "POST /v1/queues/[name]/bulk": { action: "delete-dead", q: "x", expected: 1 },
  "POST /v1/workers/bulk-remove": { workers: [{ automation_type: "t", worker_id: "w" }] },
  "POST /v1/workers/bulk-config": { automation_type: "t", patch: { slots: 1 }, workers: [{ worker_id: "w", config_gen: 0 }] },
};

/** Routes that answer a Redis outage otherwise than 503, on purpose. */
export const NOT_503: Record<string, string> = {
  "GET /v1/events": "a stream: it opens after waiting for the hub (sse-response.ts); pages learn of the outage from the API's 503s",
  "GET /v1/metrics": "answers 200 with fleet_backend_up 0 so that Prometheus keeps scraping (checked below)",
  "GET /v1/auth/session": "reads no Fleet data",
  "POST /v1/auth/signin": "reads no Fleet data (users come from the environment)",
  "POST /v1/auth/signout": "reads no Fleet data",
  "GET /v1/openapi.json": "describes the API, reads no Fleet data (a session cookie still needs Redis: 503, documented)",
};

/** Failures that do not depend on the data: a Redis that is down or hangs, a bug in a handler. */
export function failureSuite(h: Harness): void {
  describe("unexpected errors", () => {
    it("answer a generic 500 that leaks nothing", async () => {
      const b = h.backend;
      const original = b.workerList.bind(b);
      b.workerList = async () => {
        throw new Error("ERR secret internals at redis://admin:hunter2@10.0.0.1");
      };
      const errors: unknown[] = [];
      const origError = console.error;
      console.error = (...args: unknown[]) => void errors.push(args);
      try {
        const res = await h.call(workers.GET, "GET", "/workers");
        expect(res.status).toBe(500);
        expect(res.json.error.code).toBe("internal");
        expect(JSON.stringify(res.json)).not.toMatch(/hunter2|secret|10\.0\.0\.1/);
        expect(errors).toHaveLength(1);
      } finally {
        b.workerList = original;
        console.error = origError;
      }
    });
  });

  describe("JSON bodies", () => {
    it("accept a body of exactly 1 MiB and refuse one byte more with 413", async () => {
      await h.backend.workerRegister("t", "w", {});
      const base = JSON.stringify({ payload: { s: "" } });
      const exact = JSON.stringify({ payload: { s: "x".repeat(1024 * 1024 - base.length) } });
      expect(Buffer.byteLength(exact)).toBe(1024 * 1024);
      expect((await h.call(tasks.POST, "POST", "/automations/t/tasks", { rawBody: exact })).status).toBe(201);
      const over = JSON.stringify({ payload: { s: "x".repeat(1024 * 1024 - base.length + 1) } });
      expect((await h.call(tasks.POST, "POST", "/automations/t/tasks", { rawBody: over })).status).toBe(413);
    });

    it("answer 413 for a 20 MiB body without reading all of it", async () => {
      const res = await h.call(tasks.POST, "POST", "/automations/t/tasks", { rawBody: new Uint8Array(20 * 1024 * 1024).fill(0x20) });
      expect(res.status).toBe(413);
    });

    it("answer 400 for invalid UTF-8", async () => {
      const res = await h.call(tasks.POST, "POST", "/automations/t/tasks", { rawBody: new Uint8Array([0x7b, 0xff, 0x7d]) });
      expect(res.status).toBe(400);
    });
  });
}

/**
 * Redis unreachable: every route (every method of every route.ts, ./route-walk.ts; NOT_503
 * names the exceptions) answers 503 quickly and names the URL without its password (health,
 * open to anyone, names no address at all).
 */
export function backendDownSuite(): void {
  describe("when Redis is down", () => {
    const sockets = new Set<net.Socket>();
    const silent = net.createServer((socket) => {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
    });

    afterEach(async () => {
      await closeBackend();
    });
    afterAll(async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    });

    /** `timeout`: which one must have fired, as the message names it (the connect timeout, not a command's). */
    async function expect503(url: string, hostPort: string, secret: string, timeout: RegExp): Promise<void> {
      await switchBackendUrl(url);
      const all = endpoints();
      for (const key of Object.keys(NOT_503))
        expect(
          all.map((e) => e.key),
          `NOT_503 names ${key}`,
        ).toContain(key);
      const calls = all.filter((e) => !(e.key in NOT_503));
      expect(calls.length).toBeGreaterThan(30);
      // All at once: each waits out the connect timeout, one after the other they would take a minute.
      const handlers = await Promise.all(calls.map((e) => handlerOf(e)));
      const answers = await Promise.all(
        calls.map(async (e, i) => {
          const body = BODIES[e.key];
          const started = performance.now();
          const req = new Request(urlOf(e.apiPath), {
            method: e.method,
            ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { "content-type": "application/json" } }),
          });
          const res = await handlers[i]!(req, { params: Promise.resolve({}) });
          const ms = performance.now() - started;
          return { e, res, ms, json: (await res.json()) as { error: { code: string; message: string } } };
        }),
      );
      for (const { e, res, ms, json } of answers) {
        expect(res.status, `${e.key}: ${JSON.stringify(json)}`).toBe(503);
        expect(json.error.code, e.key).toBe("backend_unavailable");
        // health is open to anonymous callers (load balancers): it names no host, port or user
        if (e.key === "GET /v1/health") expect(json.error.message, e.key).not.toContain(hostPort);
        else expect(json.error.message, e.key).toContain(hostPort);
        expect(JSON.stringify(json), e.key).not.toContain(secret);
        if (e.key !== "GET /v1/health") expect(json.error.message, e.key).toMatch(timeout);
        // a guard against hanging, far above the 1.5 s connect timeout: latency is the benchmarks' business
        expect(ms, e.key).toBeLessThan(15_000);
      }
      const metrics = await (await handlerOf(all.find((e) => e.key === "GET /v1/metrics")!))(new Request(urlOf("/v1/metrics")));
      expect(metrics.status).toBe(200);
      expect(await metrics.text()).toMatch(/^fleet_backend_up 0$/m);
    }

    it("refused: 503 once the connect timeout ends, saying the connection was refused, URL without password", async () => {
      await expect503("redis://admin:s3cret-pw@127.0.0.1:1/0", "127.0.0.1:1", "s3cret-pw", /no connection within 1500 ms \(.*ECONNREFUSED/);
    });

    it("accepting but never answering: 503 once the connect timeout ends, not hanging", async () => {
      await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
      const { port } = silent.address() as net.AddressInfo;
      await expect503(`redis://:hang-pw@127.0.0.1:${port}/0`, `127.0.0.1:${port}`, "hang-pw", /no connection within 1500 ms/);
    });
  });
}
