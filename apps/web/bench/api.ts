// API benchmark against the production build (`pnpm bench:api` at the root).
//
// Needs `next build` to have run in apps/web, and a Redis: BENCH_REDIS_URL or, failing
// that, REDIS_TEST_URL. It uses its own database of that Redis (@fleet/backend/testing/redis-dbs) and FLUSHES it before and after.
// It starts `next start` on a free loopback port itself, seeds 10,000 workers, 200 queues
// and a few automations through the backend (batched), then prints p50/p95 latencies of
// the heavy REST reads and the delay from a Redis PUBLISH to its arrival at each of 500
// SSE clients. It prints figures; it is not a test and asserts nothing.
// BENCH_SECTIONS=rest or =sse runs only one half (default: both).
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import http from "node:http";
import net from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";

import type { Backend } from "@fleet/backend";
import { testRedisDb } from "@fleet/backend/testing/redis-dbs";
import { backendFromUrl } from "@fleet/backend/url";
import { Redis } from "ioredis";

const WEB_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const DB = testRedisDb("apps/web/bench/api.ts");
const WORKERS = 10_000;
const AUTOMATION_TYPES = 20;
const QUEUES = 200;
const TASKS_PER_QUEUE = 25;
const WARMUP = 5;
const REQUESTS = 50;
const SSE_CLIENTS = 500;
const MESSAGES = 20;
const MESSAGE_GAP_MS = 100;
const SEED_CONCURRENCY = 500;

const wallMs = () => performance.timeOrigin + performance.now();

function fail(message: string): never {
  console.error(`bench:api: ${message}`);
  process.exit(2);
}

function redisUrl(): string {
  const base = process.env.BENCH_REDIS_URL || process.env.REDIS_TEST_URL;
  if (!base) {
    fail(`set BENCH_REDIS_URL (or REDIS_TEST_URL) to a Redis the bench may use, e.g. redis://127.0.0.1:6390; database ${DB} of it is flushed.`);
  }
  const u = new URL(base);
  if (!/^rediss?:$/.test(u.protocol)) fail(`not a redis:// URL: ${u.protocol}`);
  if (!["127.0.0.1", "localhost", "[::1]"].includes(u.hostname)) fail(`the bench runs on loopback only, not ${u.hostname}`);
  u.pathname = `/${DB}`;
  return u.toString();
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

function summary(samples: number[]): string {
  const s = [...samples].sort((a, b) => a - b);
  const f = (n: number) => n.toFixed(1).padStart(7);
  return `p50 ${f(percentile(s, 50))} ms   p95 ${f(percentile(s, 95))} ms   max ${f(s[s.length - 1] ?? NaN)} ms   (n=${s.length})`;
}

async function inBatches<T>(items: T[], size: number, work: (item: T) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(work));
}

async function seed(backend: Backend): Promise<void> {
  const now = Date.now() / 1000;
  const types = Array.from({ length: AUTOMATION_TYPES }, (_, i) => `bench-type-${String(i).padStart(2, "0")}`);
  for (const [i, type] of types.entries()) {
    if (i % 2 === 0) {
      await backend.catalogSet(type, JSON.stringify({ config: { type: "object" }, output: null, task_payload: { type: "object" } }));
    }
  }
  const workers = Array.from({ length: WORKERS }, (_, i) => ({ type: types[i % types.length]!, id: `w-${String(i).padStart(5, "0")}` }));
  const states = ["IDLE", "RUNNING", "ERROR"] as const;
  await inBatches(workers, SEED_CONCURRENCY, async ({ type, id }) => {
    await backend.workerRegister(type, id, { hostname: `host-${id}`, cpus: 8, memory_gb: 16 });
    const i = Number(id.slice(2));
    const state = states[i % 3]!;
    await backend.workerSetState(type, id, state, state === "ERROR" ? "bench error" : null, now - (i % 7 === 0 ? 600 : 1));
    await backend.workerSetStats(type, id, { done: i, failed: i % 5, slots: 4 });
  });
  const queues = Array.from({ length: QUEUES }, (_, i) => (i < types.length ? types[i]! : `bench-queue-${i}`));
  await inBatches(queues, 50, async (name) => {
    await backend.queuePushMany(
      name,
      Array.from({ length: TASKS_PER_QUEUE }, (_, t) => ({
        body: JSON.stringify({ id: `${name}-${t}`, payload: { n: t } }),
        priority: (["high", "normal", "low"] as const)[t % 3],
      })),
    );
    await backend.queueDead(name, JSON.stringify({ id: `${name}-dead`, payload: {} }));
  });
}

async function startServer(port: number, backendUrl: string): Promise<ChildProcess> {
  const nextBin = path.join(WEB_DIR, "node_modules", ".bin", "next");
  if (!existsSync(nextBin)) fail(`next is not installed at ${nextBin}`);
  const child = spawn(nextBin, ["start", "-p", String(port), "-H", "127.0.0.1"], {
    cwd: WEB_DIR,
    env: {
      ...process.env,
      NODE_ENV: "production",
      NEXT_TELEMETRY_DISABLED: "1",
      FLEET_BACKEND_URL: backendUrl,
      FLEET_INSECURE_NO_AUTH: "1",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let log = "";
  child.stdout?.on("data", (d: Buffer) => (log += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (log += d.toString()));
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) fail(`next start exited with ${child.exitCode}:\n${log}`);
    try {
      const res = await fetch(`http://127.0.0.1:${port}/api/v1/health`);
      if (res.status === 200) return child;
      await res.body?.cancel();
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  child.kill("SIGKILL");
  fail(`next start did not answer /api/v1/health within 60 s:\n${log}`);
}

async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
  await exited;
  clearTimeout(timer);
}

/** Latencies of the successful answers; failures are counted, not fatal (a slow route is a finding). */
async function timeGets(base: string, pathAndQuery: string): Promise<{ samples: number[]; bytes: number; failures: string[] }> {
  let bytes = 0;
  const failures: string[] = [];
  const once = async (): Promise<number | null> => {
    const started = performance.now();
    const res = await fetch(`${base}${pathAndQuery}`);
    const body = await res.arrayBuffer();
    const ms = performance.now() - started;
    if (res.status !== 200) {
      failures.push(`${res.status} after ${ms.toFixed(0)} ms: ${Buffer.from(body).toString().slice(0, 200)}`);
      return null;
    }
    bytes = body.byteLength;
    return ms;
  };
  for (let i = 0; i < WARMUP; i++) await once();
  failures.length = 0;
  const samples: number[] = [];
  for (let i = 0; i < REQUESTS; i++) {
    const ms = await once();
    if (ms !== null) samples.push(ms);
  }
  return { samples, bytes, failures };
}

interface SseClient {
  req: http.ClientRequest;
  connected: boolean;
  /** seq -> arrival time (wall ms) of the benchmark messages. */
  arrivals: Map<number, number>;
  probes: Set<string>;
  bytes: number;
  /** Frames by event name. */
  frames: Map<string, number>;
}

function openSseClient(port: number): SseClient {
  const client: SseClient = {
    req: undefined as unknown as http.ClientRequest,
    connected: false,
    arrivals: new Map(),
    probes: new Set(),
    bytes: 0,
    frames: new Map(),
  };
  client.req = http.get({ host: "127.0.0.1", port, path: "/api/v1/events?topics=bench.*", agent: false, headers: { Accept: "text/event-stream" } }, (res) => {
    res.setEncoding("utf8");
    let buffer = "";
    res.on("data", (chunk: string) => {
      const at = wallMs();
      client.bytes += Buffer.byteLength(chunk);
      buffer += chunk;
      let end: number;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (frame.startsWith(": connected")) client.connected = true;
        const event = /(?:^|\n)event: ([a-z]+)/.exec(frame)?.[1];
        if (event) client.frames.set(event, (client.frames.get(event) ?? 0) + 1);
        if (event !== "bus") continue;
        const data = frame.slice(frame.indexOf("\ndata: ") + 7);
        const msg = JSON.parse(data) as { topic: string; payload: { seq?: number; probe?: string } };
        if (msg.payload.probe !== undefined) client.probes.add(msg.payload.probe);
        else if (msg.payload.seq !== undefined) client.arrivals.set(msg.payload.seq, at);
      }
    });
    res.on("error", () => undefined);
  });
  client.req.on("error", () => undefined);
  return client;
}

async function waitUntil(what: string, timeoutMs: number, cond: () => boolean, onTick?: () => Promise<void>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await onTick?.();
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function benchSse(port: number, publisher: Redis): Promise<void> {
  const clients = Array.from({ length: SSE_CLIENTS }, () => openSseClient(port));
  try {
    await waitUntil(`${SSE_CLIENTS} SSE clients to connect`, 30_000, () => clients.every((c) => c.connected));
    // The hub subscribes on its first client; probe until every client hears the bus.
    let probe = 0;
    await waitUntil(
      "the hub's subscription to reach every client",
      30_000,
      () => clients.every((c) => c.probes.size > 0),
      async () => {
        await publisher.publish("event:bench.probe", JSON.stringify({ probe: String(probe++) }));
      },
    );

    const sentAt = new Map<number, number>();
    for (let seq = 0; seq < MESSAGES; seq++) {
      const t = wallMs();
      sentAt.set(seq, t);
      await publisher.publish("event:bench.latency", JSON.stringify({ seq, sent_at_ms: t }));
      await new Promise((r) => setTimeout(r, MESSAGE_GAP_MS));
    }
    await waitUntil("the last message to arrive everywhere", 10_000, () => clients.every((c) => c.arrivals.size === MESSAGES)).catch(() => undefined);

    const delays: number[] = [];
    let missing = 0;
    for (const c of clients) {
      for (const [seq, t0] of sentAt) {
        const t1 = c.arrivals.get(seq);
        if (t1 === undefined) missing++;
        else delays.push(t1 - t0);
      }
    }
    console.log(`  publish -> SSE client (${SSE_CLIENTS} clients x ${MESSAGES} messages): ${summary(delays)}${missing ? `   MISSING ${missing}` : ""}`);
    const first = clients[0]!;
    const kinds = [...first.frames].map(([k, n]) => `${k} ${n}`).join(", ");
    console.log(`    one client received ${(first.bytes / 1024).toFixed(0)} KiB in frames: ${kinds}`);
    const sorted = [...delays].sort((a, b) => a - b);
    const p95 = percentile(sorted, 95);
    console.log(`    target p95 < 100 ms: ${p95 < 100 && missing === 0 ? "met" : "NOT met"}`);
  } finally {
    for (const c of clients) c.req.destroy();
  }
}

async function main(): Promise<void> {
  const url = redisUrl();
  // NEXT_DIST_DIR (passed on to next start) benches a build of one's own beside others'.
  const distDir = process.env.NEXT_DIST_DIR || ".next";
  if (!existsSync(path.join(WEB_DIR, distDir, "BUILD_ID"))) {
    fail(`no production build in apps/web/${distDir}: run \`pnpm --filter @fleet/web build\` (or \`pnpm build\`) first.`);
  }
  const admin = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await admin.connect();
  } catch (err) {
    fail(`cannot reach Redis at ${url.replace(/\/\/[^@]*@/, "//***@")}: ${err instanceof Error ? err.message : String(err)}`);
  }
  let server: ChildProcess | null = null;
  const backend = backendFromUrl(url);
  const cleanup = async () => {
    if (server) await stopServer(server);
    server = null;
    await admin.flushdb().catch(() => undefined);
    await backend.close().catch(() => undefined);
    admin.disconnect();
  };
  const onSignal = () => void cleanup().finally(() => process.exit(130));
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);

  try {
    await admin.flushdb();
    console.log(`bench:api: Redis ${url.replace(/\/\/[^@]*@/, "//***@")} (database ${DB}, flushed)`);
    let t = performance.now();
    await seed(backend);
    console.log(
      `  seeded ${WORKERS} workers over ${AUTOMATION_TYPES} automation types, ${QUEUES} queues x ${TASKS_PER_QUEUE} tasks in ${((performance.now() - t) / 1000).toFixed(1)} s`,
    );

    const port = await freePort();
    t = performance.now();
    server = await startServer(port, url);
    console.log(`  next start on 127.0.0.1:${port}, ready in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    const base = `http://127.0.0.1:${port}`;

    const sections = (process.env.BENCH_SECTIONS || "rest,sse").split(",");
    if (sections.includes("rest")) {
      console.log(`  REST (${WARMUP} warm-up, then ${REQUESTS} sequential requests each):`);
      for (const [label, p] of [
        ["GET /api/v1/workers?limit=1000", "/api/v1/workers?limit=1000"],
        // What the /workers page asks for: one page of 100, sorted by last seen on the server,
        // then narrowed by a search and a status (every worker is still read to filter and count).
        ["GET /workers page, -last_seen", "/api/v1/workers?limit=100&sort=-last_seen"],
        ["GET /workers page, q + status", "/api/v1/workers?limit=100&sort=-last_seen&q=w-01&status=running"],
        ["GET /api/v1/queues", "/api/v1/queues"],
        ["GET /api/v1/automations", "/api/v1/automations"],
        ["GET /api/v1/metrics", "/api/v1/metrics"],
      ] as const) {
        const { samples, bytes, failures } = await timeGets(base, p);
        console.log(`  ${label.padEnd(34)} ${summary(samples)}   ${(bytes / 1024).toFixed(0)} KiB`);
        if (failures.length > 0) console.log(`    ${failures.length} of ${REQUESTS} failed, first: ${failures[0]}`);
        if (p.startsWith("/api/v1/workers")) {
          const p50 = percentile(
            [...samples].sort((a, b) => a - b),
            50,
          );
          console.log(`    target p50 < 150 ms: ${p50 < 150 && failures.length === 0 ? "met" : "NOT met"}`);
        }
      }
    }
    if (sections.includes("sse")) await benchSse(port, admin);
  } finally {
    await cleanup();
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}

main().catch((err: unknown) => {
  console.error("bench:api failed:", err instanceof Error ? err.message : err);
  process.exit(1);
});
