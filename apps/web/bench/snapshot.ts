// Snapshot benchmark (`pnpm bench:snapshot` at the root; issue 17 point 4). Not a test: it
// prints figures and asserts nothing.
//
// The live-events loop reads a snapshot of the fleet every tick (src/server/events). With a
// large fleet whose workers report big stats bodies, decoding those records (and collecting
// their garbage) can hold the thread that does it, and in the request thread every bus frame
// and HTTP answer waits meanwhile. This measures the two ways the console can read snapshots:
// `thread` (production on Redis: a worker thread reads and diffs, snapshot-thread.ts) and
// `inline` (the request thread does: the memory backend, and the fallback when no worker
// thread starts).
//
// It starts its OWN redis-server (a free loopback port, no persistence, a temp dir, stopped
// at the end), seeds BENCH_SNAPSHOT_WORKERS (10,000) workers with stats bodies of about
// BENCH_SNAPSHOT_STATS_KB (8) KiB each, then polls like the hub: a first snapshot (the
// baseline: every worker read), then BENCH_SNAPSHOT_TICKS (15) ticks one interval apart, with
// the stats of 1,000 workers rewritten (server-side, by a script) before each. For the first
// snapshot and the steady ticks it prints the snapshot time, the request thread's event-loop
// delay (perf_hooks.monitorEventLoopDelay, 1 ms resolution: p50, p99, max), its garbage
// collection pauses and the process's CPU time per tick. BENCH_SNAPSHOT_KINDS (default
// `thread,inline,thread,inline`) picks the runs.
//
// Issue 17.4 kept the thread: on 2 shared cores the inline read, even in slices of 250
// workers with a yield to the event loop between them (the other defence, removed), held
// the request thread 340-1,100 ms at p99; the thread 12-19 ms (figures in the commit).
import { PerformanceObserver, monitorEventLoopDelay, performance } from "node:perf_hooks";

import { startPrivateRedis } from "@fleet/backend/testing/private-redis";
import { backendFromUrl } from "@fleet/backend/url";
import { Redis } from "ioredis";

import type { KnownNames } from "../src/server/events/change-detector";
import { InlineSnapshotSource, type SnapshotSource } from "../src/server/events/snapshot-source";
import { ThreadSnapshotSource } from "../src/server/events/snapshot-thread";

const WORKERS = Number(process.env.BENCH_SNAPSHOT_WORKERS ?? 10_000);
const STATS_KB = Number(process.env.BENCH_SNAPSHOT_STATS_KB ?? 8);
const TICKS = Number(process.env.BENCH_SNAPSHOT_TICKS ?? 15);
/** The backends' worker cache (FLEET_WORKER_CACHE_MB); unset: their default (64 MiB). */
const CACHE_BYTES = process.env.BENCH_SNAPSHOT_WORKER_CACHE_MB === undefined ? undefined : Number(process.env.BENCH_SNAPSHOT_WORKER_CACHE_MB) * 1024 * 1024;
const INTERVAL_MS = 1000;
const TYPES = 10;
const REWRITTEN_PER_TICK = 1000;
const OFFLINE_AFTER = 3600;
const NAMES: KnownNames = { queues: [], pools: [], streams: [] };

/** A stats body of about `kb` KiB: per-domain counters, as a scraper reports them. */
function statsBody(n: number, kb: number): string {
  const domains: Record<string, { ok: number; failed: number; p95_ms: number; last: string }> = {};
  const per = 64; // bytes per domain entry, about
  for (let d = 0; d < Math.max(1, Math.floor((kb * 1024) / per)); d++) {
    domains[`domain-${d}.example`] = { ok: n + d, failed: d % 7, p95_ms: 100 + (d % 50) + 0.5, last: "ok" };
  }
  return JSON.stringify({ done: n, failed: n % 5, rps: 1.5, domains });
}

// Rewrites the stats of ARGV[2] workers from ARGV[1] on (wrapping), each to its old body with
// a new `done`: run by Redis, so the writes cost this process nothing.
const REWRITE = `
local n = tonumber(ARGV[2])
local total = tonumber(ARGV[3])
for i = 0, n - 1 do
  local j = (tonumber(ARGV[1]) + i) % total
  local key = 'wkr:bench-type-' .. (j % ${TYPES}) .. ':w-' .. string.format('%05d', j) .. ':stats'
  local body = redis.call('GET', key)
  if body then redis.call('SET', key, (string.gsub(body, '"done": %d+', '"done": ' .. ARGV[4], 1))) end
end
return n`;

async function seed(admin: Redis): Promise<void> {
  const now = Date.now() / 1000;
  for (let i = 0; i < WORKERS; i += 500) {
    const p = admin.pipeline();
    for (let j = i; j < Math.min(WORKERS, i + 500); j++) {
      const type = `bench-type-${j % TYPES}`;
      const id = `w-${String(j).padStart(5, "0")}`;
      const k = (f: string) => `wkr:${type}:${id}:${f}`;
      p.set(k("hardware"), JSON.stringify({ hostname: `host-${j}`, cpus: 8, memory_gb: 16, os: "linux" }));
      p.set(k("config"), JSON.stringify({ slots: 4, proxy: { host: "p", port: 8080 } }));
      p.set(k("gen"), "1");
      // Python's json.dumps separators, so the rewrite script finds `"done": n`
      p.set(k("stats"), statsBody(j, STATS_KB).replaceAll('":', '": ').replaceAll(',"', ', "'));
      p.hset(k("state"), "state", j % 3 === 0 ? "RUNNING" : "IDLE", "last_seen", String(now), "last_error", "");
      p.sadd(`wkrs:${type}`, id);
      p.sadd("wkrs:all", `${type}|${id}`);
    }
    await p.exec();
  }
}

interface Phase {
  snapshotMs: number[];
  delay: { p50: number; p99: number; max: number };
  /** Garbage collection in the request thread: pauses, their sum and the longest. */
  gc: { count: number; totalMs: number; maxMs: number };
  /** CPU time of the whole process (every thread) per tick. */
  cpuMsPerTick: number;
  changed: number;
}

const gcPauses: number[] = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) gcPauses.push(e.duration);
}).observe({ entryTypes: ["gc"] });

let rewriteSeq = 1_000_000;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const f1 = (n: number) => n.toFixed(1);

function stats(xs: number[]): string {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))] ?? Number.NaN;
  return `p50 ${f1(at(0.5))} ms, max ${f1(s[s.length - 1] ?? Number.NaN)} ms`;
}

async function measure(label: string, source: SnapshotSource, admin: Redis): Promise<{ first: Phase; steady: Phase }> {
  const h = monitorEventLoopDelay({ resolution: 1 });
  const phase = async (ticks: number, rewrite: boolean, offset: number): Promise<Phase> => {
    const snapshotMs: number[] = [];
    let changed = 0;
    gcPauses.length = 0;
    const cpu0 = process.cpuUsage();
    h.reset();
    h.enable();
    for (let t = 0; t < ticks; t++) {
      if (rewrite) {
        h.disable();
        await admin.eval(REWRITE, 0, String((offset + t) * REWRITTEN_PER_TICK), String(REWRITTEN_PER_TICK), String(WORKERS), String(++rewriteSeq));
        h.enable();
      }
      const start = performance.now();
      const changes = await source.poll(Date.now() / 1000, NAMES);
      snapshotMs.push(performance.now() - start);
      for (const c of changes) if (c.event === "workers") changed += c.data.changed.length;
      // the hub waits out the rest of its interval; the delay keeps being measured meanwhile
      if (rewrite) await sleep(Math.max(0, INTERVAL_MS - (performance.now() - start)));
    }
    h.disable();
    const cpu = process.cpuUsage(cpu0);
    return {
      snapshotMs,
      changed,
      delay: { p50: h.percentile(50) / 1e6, p99: h.percentile(99) / 1e6, max: h.max / 1e6 },
      gc: { count: gcPauses.length, totalMs: gcPauses.reduce((a, b) => a + b, 0), maxMs: Math.max(0, ...gcPauses) },
      cpuMsPerTick: (cpu.user + cpu.system) / 1000 / ticks,
    };
  };
  const first = await phase(1, false, 0);
  const steady = await phase(TICKS, true, 0);
  const line = (name: string, p: Phase) =>
    console.log(
      `  ${label.padEnd(8)} ${name.padEnd(7)} snapshot ${stats(p.snapshotMs).padEnd(30)} event-loop delay p50 ${f1(p.delay.p50)} ms, p99 ${f1(p.delay.p99)} ms, max ${f1(p.delay.max)} ms` +
        `; gc ${p.gc.count} pauses, ${f1(p.gc.totalMs)} ms, longest ${f1(p.gc.maxMs)} ms; cpu ${f1(p.cpuMsPerTick)} ms/tick` +
        (name === "steady" ? `; ${p.changed} changed workers reported` : ""),
    );
  line("first", first);
  line("steady", steady);
  return { first, steady };
}

async function main(): Promise<void> {
  const redis = await startPrivateRedis();
  const admin = new Redis(redis.url(0));
  try {
    const t0 = performance.now();
    await seed(admin);
    const mem = (await admin.info("memory")).match(/used_memory_human:(\S+)/)?.[1] ?? "?";
    console.log(`seeded ${WORKERS} workers, stats about ${STATS_KB} KiB each (Redis ${mem}) in ${f1((performance.now() - t0) / 1000)} s; ${TICKS} ticks ${INTERVAL_MS} ms apart`);
    const backend = backendFromUrl(redis.url(0), CACHE_BYTES === undefined ? {} : { workerCache: { bytes: CACHE_BYTES } });
    console.log(`worker cache: ${CACHE_BYTES === undefined ? "the default" : `${CACHE_BYTES / 1024 / 1024} MiB`}`);
    try {
      for (const kind of (process.env.BENCH_SNAPSHOT_KINDS ?? "thread,inline,thread,inline").split(",")) {
        const inline = () => new InlineSnapshotSource(async () => backend, OFFLINE_AFTER);
        const source =
          kind === "thread"
            ? new ThreadSnapshotSource({ backendUrl: redis.url(0), offlineAfterSeconds: OFFLINE_AFTER, workerCacheBytes: CACHE_BYTES }, inline, (m) => console.log(m))
            : inline();
        await measure(kind, source, admin);
        await source.close();
      }
    } finally {
      await backend.close();
    }
  } finally {
    admin.disconnect();
    await redis.stop();
  }
}

await main();
