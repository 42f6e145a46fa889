// Reading every worker for the console: RedisBackend.workersGet (pipelined, chunked) against
// a naive one-worker-at-a-time read modelled on the Python reference's worker_get
// (sismember, get hardware, get stats, get config + gen, hgetall state: five round trips).
// Each side is timed over three runs and the best is shown; round trips and commands are
// counted at ioredis' send path, so a pipeline counts as one round trip of many commands.
//
//   BENCH_REDIS_URL=redis://127.0.0.1:6390/0 pnpm --filter @fleet/backend bench
//
// Uses its own database of that server (test/support/redis-dbs.ts) and FLUSHES it.
import { cpus, loadavg } from "node:os";
import { Redis } from "ioredis";
import { encodeUnixFloat } from "../src/codec";
import { keys, WORKER_ALL_INDEX } from "../src/keys";
import { pyFloat, pyJsonBytes } from "../src/pyjson";
import { createRedisBackend } from "../src/redis";
import type { WorkerRef } from "../src/types";
import { testRedisDb } from "../test/support/redis-dbs";

const BENCH_DB = testRedisDb("packages/backend/bench/read-workers.ts");
const SIZES = [1_000, 10_000];
const TYPES = ["scraper", "cf-cookies", "mailer", "renderer"];
const WRITE_CHUNK = 500;

function benchUrl(): string {
  const raw = process.env.BENCH_REDIS_URL ?? process.env.REDIS_TEST_URL;
  if (!raw) {
    console.error(`bench: set BENCH_REDIS_URL (or REDIS_TEST_URL) to a disposable Redis, e.g. redis://127.0.0.1:6390/0; database ${BENCH_DB} will be flushed`);
    process.exit(2);
  }
  const u = new URL(raw);
  u.pathname = `/${BENCH_DB}`;
  return u.toString();
}

async function seed(r: Redis, n: number): Promise<WorkerRef[]> {
  await r.flushdb();
  const refs: WorkerRef[] = Array.from({ length: n }, (_, i) => ({ automationType: TYPES[i % TYPES.length]!, workerId: `host-${String(i).padStart(5, "0")}-slot` }));
  const now = Date.now() / 1000;
  for (let i = 0; i < refs.length; i += WRITE_CHUNK) {
    const p = r.pipeline();
    for (const { automationType: t, workerId: w } of refs.slice(i, i + WRITE_CHUNK)) {
      p.set(keys.worker(t, w, "hardware"), pyJsonBytes({ hostname: w, cpu_count: 8, memory_mb: 16384, python: "3.11.2", ip: "10.0.0.7" }));
      p.set(keys.worker(t, w, "config"), pyJsonBytes({ slots: 4, headless: true, proxy_pool: "residential-eu", timeout_s: 30 }));
      p.set(keys.worker(t, w, "gen"), "3");
      p.hset(keys.worker(t, w, "state"), "state", "RUNNING", "last_seen", encodeUnixFloat(now), "last_error", "");
      p.set(keys.worker(t, w, "stats"), pyJsonBytes({ done: 1234, failed: 5, rate_per_min: 12.5, slots_busy: 3 }));
      p.zadd(keys.worker(t, w, "stats:history"), String(now), pyJsonBytes({ done: 1234, ts: pyFloat(now) }));
      p.sadd(keys.workerTypeIndex(t), w);
      p.sadd(WORKER_ALL_INDEX, keys.workerAllMember(t, w));
    }
    await p.exec();
  }
  return refs;
}

interface Traffic {
  /** Requests that each wait for their own reply: single commands plus whole pipelines. */
  roundTrips: number;
  /** Commands written to the socket (a script call is one). */
  commands: number;
  stop(): void;
}

/** Counts what the client really sends, by wrapping ioredis' own send path. */
function countTraffic(client: Redis): Traffic {
  const sendCommand = client.sendCommand;
  const pipeline = client.pipeline;
  const multi = client.multi;
  const t: Traffic = {
    roundTrips: 0,
    commands: 0,
    stop() {
      client.sendCommand = sendCommand;
      client.pipeline = pipeline;
      client.multi = multi;
    },
  };
  client.sendCommand = function (this: Redis, ...args: Parameters<Redis["sendCommand"]>) {
    t.commands++;
    const stream = args[1] as { isPipeline?: boolean } | undefined;
    if (!stream?.isPipeline) t.roundTrips++;
    return sendCommand.apply(this, args);
  } as Redis["sendCommand"];
  client.pipeline = function (this: Redis, ...args: Parameters<Redis["pipeline"]>) {
    t.roundTrips++;
    return pipeline.apply(this, args);
  } as Redis["pipeline"];
  client.multi = function (this: Redis, ...args: unknown[]) {
    t.roundTrips++;
    return (multi as (...a: unknown[]) => unknown).apply(this, args);
  } as Redis["multi"];
  return t;
}

interface Measured {
  ms: number;
  roundTrips: number;
  commands: number;
  /** CPU time spent by this process and by redis-server: steadier than wall time on a busy machine. */
  cpuMs: number;
}

async function redisCpuMs(probe: Redis): Promise<number> {
  const info = await probe.info("cpu");
  const get = (f: string) => Number(new RegExp(`${f}:([\\d.]+)`).exec(info)?.[1] ?? Number.NaN);
  return (get("used_cpu_user") + get("used_cpu_sys")) * 1000;
}

/** Wall time, and client + server CPU time, of one run. */
async function timed<T>(probe: Redis, fn: () => Promise<T>): Promise<{ ms: number; cpuMs: number; value: T }> {
  const redis0 = await redisCpuMs(probe);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const value = await fn();
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const redisMs = (await redisCpuMs(probe)) - redis0;
  return { ms, cpuMs: (cpu.user + cpu.system) / 1000 + redisMs, value };
}

const RUNS = 3;

type Reader = { run(): Promise<Measured>; close(): Promise<void> };

async function batchedReader(url: string, refs: WorkerRef[], probe: Redis): Promise<Reader> {
  const backend = createRedisBackend(url, { commandTimeoutMs: 10_000 });
  await backend.health(); // connect, load the scripts: outside the measurement
  await backend.workersGet(refs.slice(0, 100));
  return {
    async run() {
      const traffic = countTraffic(backend.client);
      const { ms, cpuMs, value: got } = await timed(probe, () => backend.workersGet(refs));
      traffic.stop();
      if (got.length !== refs.length || got.some((w) => !w.registered || w.state !== "RUNNING" || w.hardware === null)) {
        throw new Error("batched read returned wrong data");
      }
      return { ms, cpuMs, roundTrips: traffic.roundTrips, commands: traffic.commands };
    },
    close: () => backend.close(),
  };
}

async function naiveReader(url: string, refs: WorkerRef[], probe: Redis): Promise<Reader> {
  const r = new Redis(url);
  await r.ping();
  return {
    async run() {
      const traffic = countTraffic(r);
      const {
        ms,
        cpuMs,
        value: running,
      } = await timed(probe, async () => {
        let n = 0;
        for (const { automationType: t, workerId: w } of refs) {
          const member = await r.sismember(keys.workerTypeIndex(t), w);
          const hardware = await r.getBuffer(keys.worker(t, w, "hardware"));
          const stats = await r.getBuffer(keys.worker(t, w, "stats"));
          const [config, gen] = await r.mgetBuffer(keys.worker(t, w, "config"), keys.worker(t, w, "gen"));
          const state = await r.hgetallBuffer(keys.worker(t, w, "state"));
          if (member && hardware && stats && config && gen && state.state?.toString() === "RUNNING") n++;
        }
        return n;
      });
      traffic.stop();
      if (running !== refs.length) throw new Error("naive read returned wrong data");
      return { ms, cpuMs, roundTrips: traffic.roundTrips, commands: traffic.commands };
    },
    close: async () => r.disconnect(),
  };
}

/** The light index read behind GET /workers, for information: best of RUNS, without and with hostnames. */
async function measureIndex(url: string, refs: WorkerRef[], probe: Redis, cached: boolean): Promise<{ plain: number; hostname: number }> {
  // without the worker cache every read goes to Redis; with it a repeat asks Redis only for a PING
  const backend = createRedisBackend(url, { commandTimeoutMs: 10_000, ...(cached ? {} : { workerCache: { bytes: 0 } }) });
  await backend.workersIndex(refs.slice(0, 100));
  const best = { plain: Infinity, hostname: Infinity };
  for (let run = 0; run < RUNS; run++) {
    for (const side of ["plain", "hostname"] as const) {
      const { ms, value } = await timed(probe, () => backend.workersIndex(refs, { hostname: side === "hostname" }));
      if (value.length !== refs.length || value.some((w) => w.state !== "RUNNING" || (side === "hostname" && w.hostname !== w.workerId))) {
        throw new Error("index read returned wrong data");
      }
      best[side] = Math.min(best[side], ms);
    }
  }
  await backend.close();
  return best;
}

/** Runs both readers in turns, so a load spike on a shared machine hits both alike; keeps each one's best run. */
async function measure(url: string, refs: WorkerRef[], probe: Redis): Promise<{ batched: Measured; naive: Measured }> {
  const readers = { batched: await batchedReader(url, refs, probe), naive: await naiveReader(url, refs, probe) };
  const best: { batched?: Measured; naive?: Measured } = {};
  for (let run = 0; run < RUNS; run++) {
    for (const side of ["batched", "naive"] as const) {
      const m = await readers[side].run();
      if (!best[side] || m.ms < best[side]!.ms) best[side] = m;
    }
  }
  await readers.batched.close();
  await readers.naive.close();
  return { batched: best.batched!, naive: best.naive! };
}

async function main() {
  const url = benchUrl();
  const probe = new Redis(url);
  const rows: string[][] = [
    ["workers", "batched ms", "batched round trips", "batched commands", "naive ms", "naive round trips", "naive commands", "speed-up", "cpu ms batched/naive"],
  ];
  let last = 0;
  let index = { plain: 0, hostname: 0 };
  let repeat = { plain: 0, hostname: 0 };
  for (const n of SIZES) {
    const refs = await seed(probe, n);
    const { batched, naive } = await measure(url, refs, probe);
    if (n === SIZES.at(-1)) {
      index = await measureIndex(url, refs, probe, false);
      repeat = await measureIndex(url, refs, probe, true);
    }
    last = naive.ms / batched.ms;
    rows.push([
      n.toLocaleString("en-US"),
      batched.ms.toFixed(1),
      String(batched.roundTrips),
      String(batched.commands),
      naive.ms.toFixed(1),
      String(naive.roundTrips),
      String(naive.commands),
      `${last.toFixed(1)}x`,
      `${batched.cpuMs.toFixed(0)}/${naive.cpuMs.toFixed(0)}`,
    ]);
  }
  await probe.flushdb();
  probe.disconnect();
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  for (const [i, row] of rows.entries()) {
    console.log(row.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join("  "));
    if (i === 0) console.log(widths.map((w) => "-".repeat(w)).join("  "));
  }
  // wall times on a busy machine mostly measure the scheduler: say how busy it was
  console.log(
    `\nload average ${loadavg()
      .map((x) => x.toFixed(2))
      .join(" ")} on ${cpus().length} CPUs; best of ${RUNS} alternating runs each`,
  );
  console.log("cpu ms: this process plus redis-server, during the best run of each side");
  console.log(
    `workersIndex (state and last_seen only, as GET /workers reads every worker) of ${SIZES.at(-1)!.toLocaleString("en-US")} workers: ${index.plain.toFixed(1)} ms, with hostnames ${index.hostname.toFixed(1)} ms from Redis; a repeat from the worker cache ${repeat.plain.toFixed(1)} ms, with hostnames ${repeat.hostname.toFixed(1)} ms`,
  );
  console.log(`target: >= 15x at ${SIZES.at(-1)!.toLocaleString("en-US")} workers: ${last >= 15 ? "met" : "NOT met"}`);
  if (last < 15) process.exitCode = 1;
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
