// Redis answering, but with an error for the data (issue 18.6): MASTERDOWN from a real
// redis-server (a replica whose primary is gone, with replica-serve-stale-data no), and
// LOADING (a server reading its dataset, or a replica loading a full sync), which no
// redis-server says on demand: a small TCP server speaking RESP says it, a real socket and
// the real client. Every route answers 503 backend_unavailable with the envelope, the
// message saying which error it was; the metrics say the backend is down; nothing answers 500.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";

import { closeBackend } from "@/server/backend";

import { BODIES, NOT_503 } from "./test/errors-suite";
import { switchBackendUrl } from "./test/harness";
import { endpoints, handlerOf, urlOf } from "./test/route-walk";

const LOADING = "LOADING Redis is loading the dataset in memory";

/** Splits RESP arrays of bulk strings (what clients send) off the front of `buf`. */
function takeCommands(buf: Buffer): { commands: string[][]; rest: Buffer } {
  const commands: string[][] = [];
  let at = 0;
  for (;;) {
    const start = at;
    const line = (from: number) => {
      const end = buf.indexOf("\r\n", from);
      return end < 0 ? null : { text: buf.toString("latin1", from, end), next: end + 2 };
    };
    const head = line(at);
    if (head?.text[0] !== "*") return { commands, rest: buf.subarray(start) };
    const n = Number(head.text.slice(1));
    at = head.next;
    const args: string[] = [];
    for (let i = 0; i < n; i++) {
      const len = line(at);
      if (!len || buf.length < len.next + Number(len.text.slice(1)) + 2) return { commands, rest: buf.subarray(start) };
      const size = Number(len.text.slice(1));
      args.push(buf.toString("utf8", len.next, len.next + size));
      at = len.next + size + 2;
    }
    commands.push(args);
  }
}

const bulk = (s: string) => `$${Buffer.byteLength(s)}\r\n${s}\r\n`;

/**
 * A RESP server. `ready`: HELLO, AUTH, INFO, SELECT and CLIENT are answered as a server that
 * accepts connections (RESP2, not loading, no cluster), so the client connects and then meets
 * `error` on everything else, PING included, as clients connected to a replica that starts
 * loading a full sync do; otherwise every command gets `error`.
 */
function fakeRedis(error: string, ready: boolean): { server: net.Server; seen: string[]; close: () => Promise<void> } {
  const sockets = new Set<net.Socket>();
  const seen: string[] = [];
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
    let pending: Buffer = Buffer.alloc(0);
    socket.on("data", (chunk: Buffer) => {
      const { commands, rest } = takeCommands(Buffer.concat([pending, chunk]));
      pending = rest;
      for (const [name = ""] of commands) {
        const cmd = name.toUpperCase();
        seen.push(cmd);
        if (ready && cmd === "INFO") socket.write(bulk("# Server\r\nredis_version:7.2.0\r\nloading:0\r\n# Cluster\r\ncluster_enabled:0\r\n"));
        // as a Redis before 6 answers it: the client then speaks RESP2
        else if (ready && cmd === "HELLO") socket.write("-ERR unknown command 'HELLO'\r\n");
        else if (ready && (cmd === "SELECT" || cmd === "CLIENT" || cmd === "AUTH")) socket.write("+OK\r\n");
        else socket.write(`-${error}\r\n`);
      }
    });
  });
  return {
    server,
    seen,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

interface Target {
  url: string;
  /** Commands the server saw, when it is the fake. */
  seen?: string[];
  close: () => Promise<void>;
}

async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const { port } = s.address() as net.AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

async function fakeTarget(error: string, ready: boolean): Promise<Target> {
  const fake = fakeRedis(error, ready);
  await new Promise<void>((r) => fake.server.listen(0, "127.0.0.1", r));
  const { port } = fake.server.address() as net.AddressInfo;
  return { url: `redis://:fake-pw@127.0.0.1:${port}/0`, seen: fake.seen, close: fake.close };
}

/** A real redis-server, replica of a primary that is not there, refusing stale reads. */
async function orphanReplica(): Promise<Target> {
  const dir = mkdtempSync(join(tmpdir(), "fleet-masterdown-"));
  const [port, gone] = [await freePort(), await freePort()];
  const args = ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir];
  args.push("--replicaof", "127.0.0.1", String(gone), "--replica-serve-stale-data", "no", "--requirepass", "fake-pw", "--masterauth", "fake-pw");
  const child: ChildProcess = spawn("redis-server", args, { stdio: "ignore" });
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  // listening: a connection is accepted
  for (let i = 0; ; i++) {
    const ok = await new Promise<boolean>((r) => {
      const c = net.connect(port, "127.0.0.1", () => {
        c.destroy();
        r(true);
      });
      c.once("error", () => r(false));
    });
    if (ok) break;
    if (i > 800 || child.exitCode !== null) throw new Error(`redis-server on ${port} did not start within 20 s`);
    await new Promise((r) => setTimeout(r, 25));
  }
  return {
    url: `redis://:fake-pw@127.0.0.1:${port}/0`,
    close: async () => {
      child.kill("SIGTERM");
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

describe.each([
  { what: "LOADING to every command, the connection's own checks too (fake)", target: () => fakeTarget(LOADING, false), word: /LOADING/, connects: false },
  { what: "LOADING once connected, as a replica loading a full sync (fake)", target: () => fakeTarget(LOADING, true), word: /LOADING/, connects: true },
  { what: "MASTERDOWN: a real replica of a primary that is gone, replica-serve-stale-data no", target: orphanReplica, word: /MASTERDOWN|READONLY/, connects: true },
])("Redis answering $what", ({ target, word, connects }) => {
  let t: Target;
  beforeAll(async () => {
    t = await target();
  });
  afterEach(async () => {
    await closeBackend();
  });
  afterAll(async () => {
    await t?.close();
  });

  it("every route answers 503 backend_unavailable saying so; the metrics say the backend is down", async () => {
    await switchBackendUrl(t.url);
    const all = endpoints();
    const calls = all.filter((e) => !(e.key in NOT_503));
    expect(calls.length).toBeGreaterThan(30);
    const handlers = await Promise.all(calls.map((e) => handlerOf(e)));
    // all at once: when the connection never becomes ready, each waits out the connect timeout
    const answers = await Promise.all(
      calls.map(async (e, i) => {
        const b = BODIES[e.key];
        const req = new Request(urlOf(e.apiPath), {
          method: e.method,
          ...(b === undefined ? {} : { body: JSON.stringify(b), headers: { "content-type": "application/json" } }),
        });
        const res = await handlers[i]!(req, { params: Promise.resolve({}) });
        return { e, res, text: await res.text() };
      }),
    );
    for (const { e, res, text } of answers) {
      expect(res.status, `${e.key}: ${text}`).toBe(503);
      const json = JSON.parse(text) as { error: { code: string; message: string } };
      expect(json.error.code, e.key).toBe("backend_unavailable");
      // which failure it was: the server's own word (health, open to anyone, says only that it is
      // down); a replica refuses a write as it is queued with READONLY, before MASTERDOWN
      if (e.key !== "GET /v1/health") expect(json.error.message, e.key).toMatch(word);
      // and which path: a refused command, or no connection within the connect timeout
      if (e.key !== "GET /v1/health") expect(/no connection within/.test(json.error.message), e.key).toBe(!connects);
      expect(text, e.key).not.toContain("fake-pw");
      expect(text, e.key).not.toMatch(/\n\s+at /);
    }
    // connected: the client sent its data commands, which got the error
    const handshake = new Set(["HELLO", "AUTH", "INFO", "SELECT", "CLIENT"]);
    if (t.seen && connects)
      expect(
        t.seen.some((c) => !handshake.has(c)),
        `data commands reached the server: ${[...new Set(t.seen)].join(",")}`,
      ).toBe(true);
    const metrics = await (await handlerOf(all.find((e) => e.key === "GET /v1/metrics")!))(new Request(urlOf("/v1/metrics")));
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toMatch(/^fleet_backend_up 0$/m);
  }, 30_000);
});
