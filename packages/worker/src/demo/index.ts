// A live demo fleet: a dozen simulated workers on several hosts, a task producer, seeded
// history and dead letters, and the housekeeping, so the console has something to show.
import { randomBytes } from "node:crypto";
import type { Backend, JsonObject, Priority } from "@fleet/backend";
import { pyFloat, pyJsonBytes } from "@fleet/backend";
import type { Automation } from "../automation";
import { skewedClock } from "../clock";
import { startHousekeeping, type Housekeeping } from "../housekeeping";
import { encodeTaskBody, newTaskId } from "../task-body";
import { startWorker, type WorkerHandle } from "../worker";
import { cfCookiesAutomation, COOKIE_POOL, enricherAutomation, scraperAutomation, SITES } from "./automations";

export { cfCookiesAutomation, enricherAutomation, scraperAutomation } from "./automations";

export interface DemoFleetOptions {
  /** Heartbeat period of every simulated worker (2-5 s keeps Redis load modest). */
  heartbeatMs?: number;
  /** Ms between producer rounds (each submits 1-3 scraper tasks). */
  producerIntervalMs?: number;
  /** Scraper backlog above which the producer pauses. */
  maxBacklog?: number;
  /** When the silent host stops heartbeating (it then turns offline within seconds: its clock runs behind). */
  silentAfterMs?: number;
  /** Length of each ERROR and each RUNNING phase of the flapping host. */
  flapPeriodMs?: number;
  /** Run the housekeeping (sweep + catalog) in this process too. Default true. */
  housekeeping?: boolean;
  /** Seed stats history, dead letters, configs and pool items when absent. Default true. */
  seed?: boolean;
  log?: (line: string) => void;
}

export interface DemoFleet {
  readonly workers: WorkerHandle[];
  readonly automations: Automation[];
  readonly housekeeping: Housekeeping | null;
  stop(): Promise<void>;
}

interface HostSpec {
  type: "scraper" | "cf-cookies" | "enricher";
  id: string;
  hostname: string;
  region: string;
  cpus: number;
  memoryGb: number;
  config: JsonObject;
  /** Stops heartbeating after `silentAfterMs`. */
  silent?: boolean;
  /** Alternates ERROR and RUNNING. */
  flaps?: boolean;
}

export const DEMO_HOSTS: HostSpec[] = [
  { type: "scraper", id: "scrape-eu-01", hostname: "scrape-eu-01.fleet.internal", region: "eu-west-1", cpus: 8, memoryGb: 16, config: { slots: 3, mode: "fast" } },
  {
    type: "scraper",
    id: "scrape-eu-02",
    hostname: "scrape-eu-02.fleet.internal",
    region: "eu-west-1",
    cpus: 4,
    memoryGb: 8,
    config: { slots: 2, mode: "thorough", headless: false },
  },
  { type: "scraper", id: "scrape-us-01", hostname: "scrape-us-01.fleet.internal", region: "us-east-1", cpus: 16, memoryGb: 32, config: { slots: 4, mode: "fast" } },
  { type: "scraper", id: "scrape-ap-01", hostname: "scrape-ap-01.fleet.internal", region: "ap-southeast-1", cpus: 4, memoryGb: 8, config: { slots: 2, mode: "stealth" } },
  { type: "scraper", id: "scrape-us-02", hostname: "scrape-us-02.fleet.internal", region: "us-east-1", cpus: 8, memoryGb: 16, config: { slots: 2 }, silent: true },
  { type: "cf-cookies", id: "cf-solver-01", hostname: "cf-solver-01.fleet.internal", region: "eu-west-1", cpus: 8, memoryGb: 16, config: { slots: 3, role: "both" } },
  {
    type: "cf-cookies",
    id: "cf-solver-02",
    hostname: "cf-solver-02.fleet.internal",
    region: "us-east-1",
    cpus: 8,
    memoryGb: 16,
    config: { slots: 2, role: "consumer", solver: "managed" },
  },
  {
    type: "cf-cookies",
    id: "cf-solver-03",
    hostname: "cf-solver-03.fleet.internal",
    region: "ap-southeast-1",
    cpus: 4,
    memoryGb: 8,
    config: { slots: 2, role: "both", solver: "js-challenge" },
    flaps: true,
  },
  { type: "enricher", id: "enrich-01", hostname: "enrich-01.fleet.internal", region: "eu-west-1", cpus: 2, memoryGb: 4, config: { slots: 2, provider: "internal" } },
  { type: "enricher", id: "enrich-02", hostname: "enrich-02.fleet.internal", region: "us-east-1", cpus: 2, memoryGb: 4, config: { slots: 1, provider: "clearbit" } },
  { type: "enricher", id: "enrich-03", hostname: "enrich-03.fleet.internal", region: "us-east-1", cpus: 2, memoryGb: 4, config: { slots: 1, provider: "mock", dry_run: true } },
  { type: "enricher", id: "enrich-04", hostname: "enrich-04.fleet.internal", region: "eu-west-1", cpus: 2, memoryGb: 4, config: { slots: 0 } },
];

const FLAP_ERRORS = [
  "Turnstile solver crashed: chrome exited with code 139 (SIGSEGV)",
  "Target page, context or browser has been closed",
  "ECONNREFUSED 127.0.0.1:9222 (DevTools endpoint gone)",
];

const between = (lo: number, hi: number) => lo + Math.random() * (hi - lo);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(Math.random() * xs.length)]!;

function hardwareOf(h: HostSpec): JsonObject {
  return {
    hostname: h.hostname,
    cpus: h.cpus,
    memory: h.memoryGb * 1024 ** 3,
    os: "Linux 6.1.0-28-cloud-amd64 x86_64",
    runtime: `node ${process.version}`,
    region: h.region,
    simulated: true,
  };
}

/** Per-host cpu and memory, so the simulated hosts do not all report this one process. */
function statsOf(h: HostSpec): (frame: JsonObject) => JsonObject {
  const baseMem = h.memoryGb * 1024 * between(0.15, 0.3);
  return (frame) => {
    const busy = Number(frame.slots_busy ?? frame.slots_running ?? 0);
    return {
      ...frame,
      cpu_pct: Math.round(Math.min(100, between(3, 9) + busy * between(8, 22)) * 10) / 10,
      memory_mb: Math.round(baseMem + busy * between(180, 320)),
    };
  };
}

function randomUrl(): { url: string; slow: boolean; depth: number } {
  const site = pick(SITES);
  const broken = Math.random() < 0.04;
  const slow = !broken && Math.random() < 0.12;
  const path = broken ? `broken/${randomBytes(3).toString("hex")}` : `${pick(["products", "articles", "users", "search"])}/${Math.floor(between(1, 99_999))}`;
  return { url: `https://${site}/${path}`, slow, depth: Math.random() < 0.2 ? Math.floor(between(1, 4)) : 0 };
}

function randomPriority(): Priority {
  const r = Math.random();
  return r < 0.15 ? "high" : r < 0.4 ? "low" : "normal";
}

async function seed(backend: Backend, log: (line: string) => void): Promise<void> {
  const now = Date.now() / 1000;
  // configs only where none was ever written, so restarts keep what an operator changed
  for (const h of DEMO_HOSTS) {
    const { gen } = await backend.workerGetConfig(h.type, h.id);
    if (gen === 0) await backend.workerSetConfig(h.type, h.id, h.config);
  }
  // five minutes of stats history per worker, one frame per 5 s
  const workers = await backend.workersGet(DEMO_HOSTS.map((h) => ({ automationType: h.type, workerId: h.id })));
  let seededHistory = 0;
  for (const h of DEMO_HOSTS) {
    const rec = workers.find((w) => w.workerId === h.id && w.automationType === h.type);
    if (rec && rec.historyLen > 0) continue;
    const slots = Number(h.config.slots ?? 1);
    const stats = statsOf(h);
    let done = Math.floor(between(200, 2000));
    let failed = Math.floor(done * between(0.02, 0.08));
    for (let i = 60; i >= 1; i--) {
      const ts = now - i * 5;
      const busy = Math.min(slots, Math.round(between(0, slots)));
      done += Math.round(busy * between(0, 6));
      if (Math.random() < 0.3) failed += 1;
      const lat = h.type === "scraper" ? between(120, 900) : h.type === "enricher" ? between(600, 2400) : between(400, 2000);
      const frame = stats({
        ts: pyFloat(ts),
        state: slots === 0 ? "IDLE" : "RUNNING",
        slots_running: slots,
        slots_busy: busy,
        slots_target: slots,
        tasks_done: done,
        tasks_failed: failed,
        tasks_retried: Math.floor(failed * 0.8),
        tasks_dead: Math.floor(failed * 0.2),
        crashes: 0,
        latency_ms: Math.round(lat * 10) / 10,
        latency_p95_ms: Math.round(lat * between(1.4, 2.2) * 10) / 10,
        config_gen: 1,
        uptime_s: 3600 - i * 5,
        seeded: true,
      });
      await backend.workerStatsPush(h.type, h.id, ts, frame);
    }
    seededHistory++;
  }
  // a few dead letters, as a morning after a bad deploy would leave them
  let seededDead = 0;
  if ((await backend.dlqLength("scraper")) === 0) {
    const errors = ["HTTP 500 Internal Server Error", "HTTP 403 Forbidden (cf challenge)", "TimeoutError: task timed out", "net::ERR_NAME_NOT_RESOLVED"];
    for (let i = 0; i < 7; i++) {
      const site = pick(SITES);
      const body = pyJsonBytes({
        id: newTaskId(),
        payload: { url: `https://${site}/broken/${randomBytes(3).toString("hex")}`, depth: 0, slow: false },
        attempts: 3,
        last_error: `Error: ${pick(errors)}`,
      });
      await backend.queueDead("scraper", body);
      seededDead++;
    }
  }
  // a handful of cookies so consumers have work before the producers catch up
  const live = (await backend.poolList(COOKIE_POOL)).length;
  for (let i = live; i < 8; i++) {
    await backend.poolPut(
      COOKIE_POOL,
      `ck-${randomBytes(5).toString("hex")}`,
      JSON.stringify({ cf_clearance: randomBytes(24).toString("base64url") }),
      { site: SITES[i % SITES.length]!, region: pick(["eu", "us", "ap"]), solver: "turnstile", minted_by: "seed" },
      Math.round(between(120, 600)),
    );
  }
  log(`demo: seeded ${seededHistory} stats histories, ${seededDead} dead letters, ${Math.max(0, 8 - live)} cookies`);
}

/** Starts the demo fleet on `backend`; `stop()` shuts it down gracefully. */
export async function startDemoFleet(backend: Backend, opts: DemoFleetOptions = {}): Promise<DemoFleet> {
  const log = opts.log ?? (() => {});
  const heartbeatMs = opts.heartbeatMs ?? 3000;
  const flapPeriodMs = opts.flapPeriodMs ?? 15_000;
  const silentAfterMs = opts.silentAfterMs ?? 8000;
  const producerIntervalMs = opts.producerIntervalMs ?? 900;
  const maxBacklog = opts.maxBacklog ?? 150;

  const startedAt = Date.now();
  const flappers = new Set(DEMO_HOSTS.filter((h) => h.flaps).map((h) => h.id));
  // the flapping host runs fine for one period, then crashes for one, and so on
  const faults = (workerId: string) => (flappers.has(workerId) && Math.floor((Date.now() - startedAt) / flapPeriodMs) % 2 === 1 ? pick(FLAP_ERRORS) : null);
  const automations: Record<HostSpec["type"], Automation> = {
    scraper: scraperAutomation(),
    "cf-cookies": cfCookiesAutomation(faults),
    enricher: enricherAutomation(),
  };

  const housekeeping = opts.housekeeping === false ? null : await startHousekeeping({ backend, automations: Object.values(automations), log });
  if (opts.seed !== false) await seed(backend, log);

  const workers: WorkerHandle[] = [];
  const timers: NodeJS.Timeout[] = [];
  for (const h of DEMO_HOSTS) {
    const w = await startWorker({
      backend,
      automation: automations[h.type],
      workerId: h.id,
      hardware: hardwareOf(h),
      // jittered so a dozen heartbeats do not land on Redis in the same millisecond
      heartbeatMs: Math.round(heartbeatMs * between(0.85, 1.15)),
      configPollMs: 20_000,
      stats: statsOf(h),
      // the silent host's clock runs 50 s behind, so once it stops it turns offline (60 s) within seconds
      ...(h.silent ? { clock: skewedClock(-50) } : {}),
      log,
    });
    workers.push(w);
    if (h.silent) {
      const t = setTimeout(() => {
        log(`demo: ${h.id} goes silent (no more heartbeats; its reservations expire and the sweep re-queues them)`);
        void w.kill();
      }, silentAfterMs);
      timers.push(t);
    }
  }

  let producing = true;
  let produced = 0;
  const produce = async () => {
    if (!producing) return;
    if ((await backend.queueSize("scraper")) >= maxBacklog) return;
    const n = 1 + Math.floor(Math.random() * 3);
    const items = Array.from({ length: n }, () => ({ body: encodeTaskBody(randomUrl()).body, priority: randomPriority() }));
    await backend.queuePushMany("scraper", items);
    produced += n;
  };
  const producer = setInterval(() => void produce().catch((e: unknown) => log(`demo: producer failed: ${String(e)}`)), producerIntervalMs);
  timers.push(producer);
  log(`demo: ${workers.length} workers on ${new Set(DEMO_HOSTS.map((h) => h.hostname)).size} hosts; producer every ${producerIntervalMs} ms`);

  let stopped = false;
  return {
    workers,
    automations: Object.values(automations),
    housekeeping,
    async stop() {
      if (stopped) return;
      stopped = true;
      producing = false;
      for (const t of timers) {
        clearTimeout(t);
        clearInterval(t);
      }
      await Promise.all(workers.map((w) => w.stop({ graceMs: 3000 })));
      await housekeeping?.stop();
      log(`demo: stopped after producing ${produced} tasks`);
    },
  };
}
