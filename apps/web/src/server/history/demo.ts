// Made-up history for the in-memory demo (`pnpm start`, memory://demo), so that its charts
// show a day and a month at once rather than a few points after startup: for every queue the
// demo has, and the fleet, a daily rhythm of backlog and throughput with a little noise and
// slowly growing dead letters, written up to (not including) the current slot, which the
// watch's own ticks then carry on from. Never used against Redis.
import { pyJsonBytes, type Backend, type HistorySlotWrite } from "@fleet/backend";

import { encodeRecord, RECORD_BYTES, RING_TTL_SECONDS, slotIndex, slotTime, TIERS, type HistoryRecord, type Tier } from "./format";

function noise(seed: number): number {
  const x = Math.sin(seed * 12.9898) * 43758.5453;
  return x - Math.floor(x);
}

function pointAt(t: number, seed: number, deadNow: number): HistoryRecord {
  const day = (t % 86_400) / 86_400;
  const wave = 0.5 + 0.5 * Math.sin(2 * Math.PI * (day - 0.3));
  const n = noise(t / 10 + seed);
  const backlog = Math.round(20 + 110 * wave * (0.8 + 0.4 * n));
  return {
    ts: t,
    high: Math.round(backlog * 0.15),
    normal: Math.round(backlog * 0.7),
    low: Math.round(backlog * 0.15),
    processing: Math.round(4 + 4 * wave),
    overdue: n > 0.985 ? 1 : 0,
    scheduled: Math.round(3 * n),
    // a few dead letters a day, fewer the further back
    dead: Math.max(0, Math.round(deadNow - (Date.now() / 1000 - t) / 43_200)),
    finished: Math.round(8 + 14 * wave * (0.7 + 0.6 * noise(t + seed * 7))),
    oldest: Math.round(15 + 240 * wave * n),
    samples: 1,
    flags: 0,
  };
}

function ringOf(tier: Tier, now: number, seed: number, deadNow: number): Buffer {
  const { step, slots } = TIERS[tier];
  const ring = Buffer.alloc(slots * RECORD_BYTES);
  const current = slotTime(tier, now);
  for (let t = current - (slots - 1) * step; t < current; t += step) {
    const rec = pointAt(t, seed, deadNow);
    if (tier === "5m") {
      rec.finished *= step / 10;
      rec.samples = step / 10;
    }
    encodeRecord(rec).copy(ring, slotIndex(tier, t) * RECORD_BYTES);
  }
  return ring;
}

/** Seeds history for every queue of the demo that has none yet (and the fleet). */
export async function seedDemoHistory(backend: Backend, now: number): Promise<number> {
  if (backend.kind !== "memory") return 0;
  const names = await backend.queueNames();
  const present = await backend.historyRead([null, ...names].map((series) => ({ series, tier: "10s" as const, offset: 0, length: 1 })));
  const todo = [null, ...names].filter((_, i) => (present[i]?.length ?? 0) === 0);
  if (todo.length === 0) return 0;
  const depths = await backend.queueDepths(names, now);
  const deadOf = (s: string | null) => (s === null ? depths.reduce((sum, d) => sum + d.dead, 0) : (depths.find((d) => d.name === s)?.dead ?? 0));
  const slots: HistorySlotWrite[] = todo.flatMap((series, i) =>
    (["10s", "5m"] as const).map((tier) => ({ series, tier, offset: 0, bytes: ringOf(tier, now, i + 1, deadOf(series)) })),
  );
  await backend.historyWrite(slots, { ttlSeconds: RING_TTL_SECONDS });
  return todo.length;
}

/** A few rules for the demo's Alerts page (no webhooks: nothing leaves the machine). */
export async function seedDemoRules(backend: Backend): Promise<boolean> {
  if (backend.kind !== "memory" || (await backend.alertRulesGet()).gen !== 0) return false;
  await backend.alertRulesSet(
    pyJsonBytes({
      webhooks: [],
      rules: [
        { id: "workers-offline", name: "Workers offline", enabled: true, webhooks: [], kind: "workers_down", automation_type: "*", more_than: 0, states: ["offline"] },
        { id: "dead-letters", name: "Dead letters piling up", enabled: true, webhooks: [], kind: "dead_letters_growth", queue: "*", more_than: 20, within_seconds: 600 },
        { id: "slow-queue", name: "Tasks waiting too long", enabled: true, webhooks: [], kind: "oldest_pending", queue: "*", older_than_seconds: 600 },
        { id: "cookies-low", name: "Cookie pool running dry", enabled: true, webhooks: [], kind: "pool_free", pool: "*", fewer_than: 2 },
      ],
    }),
    0,
  );
  return true;
}
