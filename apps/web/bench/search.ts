// Search benchmark (`pnpm bench:search` at the root; issue 14.1). Not a test: it prints each
// figure beside its target and exits 1 when one is missed.
//
// It starts its OWN redis-server (BENCH_SEARCH_REDIS_PORT, or a free port; no persistence,
// a temp dir, killed at the end) and seeds one queue `bench` with 1,000,000 tasks: 700k
// normal, 50k high and 50k low pending, 50k scheduled retries, 150k dead letters (each
// with attempts and a last_error). 1 task in 1,000 belongs to customer c17. Then it serves
// the production build (`next build` first; NEXT_DIST_DIR picks another build dir) against
// it and measures GET /api/v1/queues/bench/search:
//
// - time to the first match line, and to the last (done) line, of a text search and of a
//   field filter over all 1M tasks (targets: first results < 1 s, the whole scan < 15 s);
// - the longest single Redis command meanwhile (SLOWLOG over 1 ms; target <= 10 ms);
// - a search cancelled after 500 ms: Redis commands for it stop (LRANGE calls 1 s later).
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

import { Redis } from "ioredis";

const WEB_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const SIZES = { normal: 700_000, high: 50_000, low: 50_000, scheduled: 50_000, dead: 150_000 };
const TOTAL = Object.values(SIZES).reduce((a, b) => a + b, 0);
const TARGET = { firstMs: 1000, wholeMs: 15_000, commandMs: 10 };

const figures: Array<{ what: string; ok: boolean | null }> = [];
function figure(what: string, value: string, target: string, ok: boolean | null): void {
  figures.push({ what, ok });
  const mark = ok === null ? "    " : ok ? " ok " : "MISS";
  console.log(`[${mark}] ${what.padEnd(60)} ${value.padStart(12)}   target ${target}`);
}

const children: ChildProcess[] = [];
let redisDir: string | null = null;
function cleanup(): void {
  for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
  if (redisDir) rmSync(redisDir, { recursive: true, force: true });
}
process.on("SIGINT", () => {
  cleanup();
  process.exit(130);
});
function fail(message: string): never {
  console.error(`bench:search: ${message}`);
  cleanup();
  process.exit(2);
}
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const ms = (n: number) => `${n.toFixed(0)} ms`;

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

async function startRedis(): Promise<{ port: number; admin: Redis; proc: ChildProcess }> {
  const port = Number(process.env.BENCH_SEARCH_REDIS_PORT) || (await freePort());
  redisDir = mkdtempSync(path.join(os.tmpdir(), "fleet-bench-search-"));
  const proc = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", redisDir], {
    stdio: ["ignore", "ignore", "inherit"],
  });
  children.push(proc);
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (proc.exitCode !== null) fail(`redis-server exited with ${proc.exitCode} (port ${port} taken?)`);
    const probe = new Redis({ port, lazyConnect: true, retryStrategy: () => null });
    probe.on("error", () => undefined);
    if (
      await probe.connect().then(
        () => true,
        () => false,
      )
    ) {
      probe.disconnect();
      break;
    }
    probe.disconnect();
    if (Date.now() > deadline) fail(`redis-server did not answer on port ${port}`);
    await sleep(50);
  }
  return { port, admin: new Redis({ port, maxRetriesPerRequest: 1, commandTimeout: 120_000 }), proc };
}

/** Bodies for i in [from, to): a list (RPUSH) or, with ARGV[4] = "z", the scheduled zset; 1 in 1000 is customer c17. */
const FILL = `
local from, to, prefix, kind = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3], ARGV[4]
local batch = {}
for i = from, to - 1 do
  local b = '{"id": "' .. prefix .. i .. '", "payload": {"customer": "c' .. (i % 1000) .. '", "n": ' .. i .. ', "url": "https://example.com/item/' .. i .. '"}, "attempts": ' .. (math.floor(i / 1000) % 5) .. ', "last_error": "Timeout after ' .. (i % 60) .. 's"}'
  if kind == "z" then batch[#batch + 1] = 1700000000 + i; batch[#batch + 1] = b else batch[#batch + 1] = b end
  if #batch >= 1000 then
    if kind == "z" then redis.call("ZADD", KEYS[1], unpack(batch)) else redis.call("RPUSH", KEYS[1], unpack(batch)) end
    batch = {}
  end
end
if #batch > 0 then
  if kind == "z" then redis.call("ZADD", KEYS[1], unpack(batch)) else redis.call("RPUSH", KEYS[1], unpack(batch)) end
end
return to - from`;

async function fill(admin: Redis, key: string, n: number, prefix: string, kind: "l" | "z"): Promise<void> {
  for (let i = 0; i < n; i += 50_000) await admin.eval(FILL, 1, key, i, Math.min(n, i + 50_000), prefix, kind);
}

async function seed(admin: Redis): Promise<void> {
  const t0 = performance.now();
  await admin.flushall();
  await fill(admin, "fleet:queue:bench", SIZES.normal, "n", "l");
  await fill(admin, "fleet:queue:bench:high", SIZES.high, "h", "l");
  await fill(admin, "fleet:queue:bench:low", SIZES.low, "l", "l");
  await fill(admin, "fleet:queue:bench:scheduled", SIZES.scheduled, "s", "z");
  await fill(admin, "fleet:queue:bench:dead", SIZES.dead, "d", "l");
  console.log(`seeded ${TOTAL.toLocaleString("en")} tasks in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}

async function startConsole(redisPort: number): Promise<string> {
  const distDir = process.env.NEXT_DIST_DIR ?? ".next";
  if (!existsSync(path.join(WEB_DIR, distDir, "BUILD_ID"))) fail(`no production build in apps/web/${distDir}: run next build first (NEXT_DIST_DIR=${distDir})`);
  const port = await freePort();
  const child = spawn(path.join(WEB_DIR, "node_modules", ".bin", "next"), ["start", "-p", String(port), "-H", "127.0.0.1"], {
    cwd: WEB_DIR,
    env: {
      ...process.env,
      NODE_ENV: "production",
      NEXT_TELEMETRY_DISABLED: "1",
      NEXT_DIST_DIR: distDir,
      FLEET_BACKEND_URL: `redis://127.0.0.1:${redisPort}/0`,
      FLEET_INSECURE_NO_AUTH: "1",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let log = "";
  child.stdout?.on("data", (d: Buffer) => (log += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (log += d.toString()));
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) fail(`next start exited with ${child.exitCode}:\n${log}`);
    try {
      const res = await fetch(`${base}/api/v1/health`);
      await res.arrayBuffer();
      if (res.status === 200) return base;
    } catch {
      // not listening yet
    }
    await sleep(200);
  }
  fail(`next start did not answer within 90 s:\n${log}`);
}

interface Timed {
  firstByteMs: number;
  firstMatchMs: number | null;
  doneMs: number | null;
  done: { scanned: number; matched: number } | null;
}

/** One search, read line by line as it arrives; `abortAfterMs` cancels it. */
async function timedSearch(base: string, query: string, abortAfterMs?: number): Promise<Timed> {
  const controller = new AbortController();
  const t0 = performance.now();
  const out: Timed = { firstByteMs: NaN, firstMatchMs: null, doneMs: null, done: null };
  if (abortAfterMs !== undefined) setTimeout(() => controller.abort(), abortAfterMs);
  try {
    const res = await fetch(`${base}/api/v1/queues/bench/search?${query}`, { signal: controller.signal });
    if (res.status !== 200) fail(`search ${query} answered ${res.status}: ${await res.text()}`);
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buf = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      if (Number.isNaN(out.firstByteMs)) out.firstByteMs = performance.now() - t0;
      buf += value;
      let nl: number;
      while ((nl = buf.indexOf("\n")) >= 0) {
        const line = JSON.parse(buf.slice(0, nl)) as { type: string; scanned?: number; matched?: number };
        buf = buf.slice(nl + 1);
        if (line.type === "match" && out.firstMatchMs === null) out.firstMatchMs = performance.now() - t0;
        if (line.type === "done") {
          out.doneMs = performance.now() - t0;
          out.done = { scanned: line.scanned!, matched: line.matched! };
        }
      }
    }
  } catch (err) {
    if (!(err instanceof Error && err.name === "AbortError")) throw err;
  }
  return out;
}

async function slowest(admin: Redis): Promise<{ us: number; command: string }> {
  const entries = (await admin.call("SLOWLOG", "GET", "100000")) as Array<[number, number, number, string[]]>;
  let best = { us: 0, command: "(none over 1 ms)" };
  for (const e of entries) {
    const cmd = e[3].map(String);
    if (/^(slowlog|info|config|flushall|eval)$/i.test(cmd[0] ?? "")) continue;
    if (e[2] > best.us) best = { us: e[2], command: cmd.slice(0, 2).join(" ").slice(0, 40) };
  }
  return best;
}

async function lrangeCalls(admin: Redis): Promise<number> {
  const text = (await admin.info("commandstats")) as string;
  const m = /cmdstat_lrange:calls=(\d+)/.exec(text);
  return m ? Number(m[1]) : 0;
}

async function main(): Promise<void> {
  console.log(
    `bench:search on ${os.cpus().length} cores, load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );
  const { port, admin, proc } = await startRedis();
  console.log(`private redis-server on 127.0.0.1:${port} (pid ${proc.pid})`);
  await seed(admin);
  try {
    execFileSync("chrt", ["--fifo", "--pid", "1", String(proc.pid)], { stdio: "ignore" });
    console.log("private redis-server runs SCHED_FIFO from here on: SLOWLOG measures commands, not waits for a CPU");
  } catch {
    console.log("could not give the private redis-server SCHED_FIFO: on a busy machine SLOWLOG includes waits for a CPU");
  }
  await admin.config("SET", "slowlog-log-slower-than", "1000");
  await admin.config("SET", "slowlog-max-len", "100000");
  const base = await startConsole(port);
  // warm the route (first compile of the handler's chunk, first connection)
  await timedSearch(base, "q=warm-up&in=scheduled");
  await admin.call("SLOWLOG", "RESET");

  const cases: Array<[string, string]> = [
    ["text q=c17, all lists", `q=${encodeURIComponent('"customer": "c17"')}`],
    ['filter payload.customer = "c17" and attempts >= 3', `where=${encodeURIComponent('payload.customer = "c17" and attempts >= 3')}`],
    ['filter error_group = "Timeout after <n>s", dead only', `where=${encodeURIComponent('error_group = "Timeout after <n>s"')}&in=dead`],
  ];
  for (const [label, query] of cases) {
    const r = await timedSearch(base, query);
    if (!r.done) fail(`${label}: no done line`);
    figure(`${label}: first match`, r.firstMatchMs === null ? "none" : ms(r.firstMatchMs), `< ${TARGET.firstMs} ms`, r.firstMatchMs !== null && r.firstMatchMs < TARGET.firstMs);
    const whole = label.includes("dead only") ? SIZES.dead : TOTAL;
    figure(
      `${label}: ${r.done.scanned.toLocaleString("en")} read, ${r.done.matched.toLocaleString("en")} matched`,
      ms(r.doneMs!),
      `< ${TARGET.wholeMs} ms`,
      r.done.scanned === whole && r.doneMs! < TARGET.wholeMs,
    );
  }
  const worst = await slowest(admin);
  figure(`longest single Redis command meanwhile (${worst.command})`, `${(worst.us / 1000).toFixed(1)} ms`, `<= ${TARGET.commandMs} ms`, worst.us / 1000 <= TARGET.commandMs);

  const before = await lrangeCalls(admin);
  const cancelled = await timedSearch(base, `q=${encodeURIComponent("no such text")}`, 500);
  await sleep(300);
  const atCancel = await lrangeCalls(admin);
  await sleep(1000);
  const after = await lrangeCalls(admin);
  figure(`cancelled after 500 ms: ${atCancel - before} chunks read, then in 1 s`, `${after - atCancel} more`, "0 more", cancelled.done === null && after - atCancel === 0);
  admin.disconnect();
  cleanup();
  const missed = figures.filter((f) => f.ok === false);
  console.log(missed.length === 0 ? "bench:search: every target met" : `bench:search: ${missed.length} target(s) missed: ${missed.map((f) => f.what).join("; ")}`);
  process.exit(missed.length === 0 ? 0 : 1);
}

main().catch((err: unknown) => fail(err instanceof Error ? (err.stack ?? err.message) : String(err)));
