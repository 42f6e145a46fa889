import net from "node:net";

import { afterAll, afterEach, describe, expect, it } from "vitest";

import * as kvKey from "@/app/api/v1/kv/[ns]/[key]/route";
import * as workers from "@/app/api/v1/workers/route";
import * as tasks from "@/app/api/v1/automations/[type]/tasks/route";
import { closeBackend } from "@/server/backend";

import { useBackendUrl, type Harness } from "./harness";

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

/** Redis unreachable: every route answers 503 quickly and names the URL without its password. */
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

    async function expect503(url: string, hostPort: string, secret: string): Promise<void> {
      await useBackendUrl(url);
      const calls: Array<[typeof workers.GET, string, string, unknown]> = [
        [workers.GET, "GET", "/workers?limit=1000", undefined],
        [kvKey.PUT, "PUT", "/kv/ns/key", { value: 1 }],
      ];
      for (const [handler, method, path, body] of calls) {
        const started = performance.now();
        const req = new Request(`http://localhost/api/v1${path}`, {
          method,
          ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { "content-type": "application/json" } }),
        });
        const res = await handler(req);
        const ms = performance.now() - started;
        const json = (await res.json()) as { error: { code: string; message: string } };
        expect(res.status, path).toBe(503);
        expect(json.error.code).toBe("backend_unavailable");
        expect(json.error.message).toContain(hostPort);
        expect(JSON.stringify(json)).not.toContain(secret);
        expect(ms, path).toBeLessThan(2000);
      }
    }

    it("refused: 503 within 2 s, URL without password", async () => {
      await expect503("redis://admin:s3cret-pw@127.0.0.1:1/0", "127.0.0.1:1", "s3cret-pw");
    });

    it("accepting but never answering: 503 within 2 s", async () => {
      await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
      const { port } = silent.address() as net.AddressInfo;
      await expect503(`redis://:hang-pw@127.0.0.1:${port}/0`, `127.0.0.1:${port}`, "hang-pw");
    });
  });
}
