import { WorkerListSchema } from "@fleet/schema";
import { describe, expect, it } from "vitest";

import { workerListProblem } from "./workers-check";

/** Seeded, so a failure names a case that comes back. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const validRow = () => ({
  automation_type: "scraper",
  worker_id: "w1",
  state: "RUNNING" as string | null,
  status: "running",
  last_seen: 1_700_000_000.25 as number | null,
  last_error: null as string | null,
  config: { slots: 4, nested: { a: [1, 2] } } as Record<string, unknown> | null,
  config_gen: 3 as number | null,
  hardware: { hostname: "h" } as Record<string, unknown> | null,
  stats: {} as Record<string, unknown> | null,
});

/** Values to put in a field: right ones and wrong ones of every kind. */
const CANDIDATES: unknown[] = [
  null,
  undefined,
  "",
  "RUNNING",
  "IDLE",
  "ERROR",
  "running",
  "idle",
  "error",
  "offline",
  "sleeping",
  0,
  -1,
  2.5,
  1e300,
  Number.MAX_SAFE_INTEGER + 2,
  NaN,
  Infinity,
  -Infinity,
  true,
  {},
  { a: 1 },
  [],
  ["x"],
  [1],
];

const FIELDS = Object.keys(validRow());

describe("workerListProblem, the hand-written check of GET /workers' answer", () => {
  it("accepts what WorkerListSchema accepts and refuses what it refuses (3,000 generated answers)", () => {
    const next = rng(11);
    const pick = <T>(a: T[]) => a[Math.floor(next() * a.length)]!;
    let accepted = 0;
    for (let n = 0; n < 3000; n++) {
      const rows = Array.from({ length: 1 + Math.floor(next() * 3) }, () => {
        const row: Record<string, unknown> = validRow();
        // mostly one field changed, sometimes none, sometimes two
        const changes = next() < 0.2 ? 0 : next() < 0.8 ? 1 : 2;
        for (let c = 0; c < changes; c++) {
          const f = pick([...FIELDS, "corrupt", "corrupt", "last_error_since"]);
          const v = f === "corrupt" ? pick([undefined, [], ["state"], ["state", 1], "state", null]) : pick(CANDIDATES);
          if (v === undefined) delete row[f];
          else row[f] = v;
        }
        return row;
      });
      const counts: Record<string, unknown> = { running: 1, idle: 0, error: 0, offline: 2 };
      if (next() < 0.1) counts[pick(["running", "idle", "error", "offline"])] = pick([1.5, null, "1", NaN, -3]);
      if (next() < 0.05) delete counts[pick(["running", "idle", "error", "offline"])];
      const body: Record<string, unknown> = { total: next() < 0.05 ? pick([1.5, "3", null]) : rows.length, counts, workers: rows };
      const zod = WorkerListSchema.safeParse(body).success;
      const mine = workerListProblem(body);
      expect(mine === null, `case ${n}: ${JSON.stringify(body)} -> ${mine}`).toBe(zod);
      if (zod) accepted++;
    }
    // both outcomes were exercised
    expect(accepted).toBeGreaterThan(300);
    expect(accepted).toBeLessThan(2700);
  });

  it("refuses fields the schema does not name (zod would drop them; the serializer never writes any)", () => {
    const body = { total: 1, counts: { running: 1, idle: 0, error: 0, offline: 0 }, workers: [{ ...validRow(), secret: "x" }] };
    expect(workerListProblem(body)).toBe("workers[0].secret is not a Worker field");
    expect(workerListProblem({ ...body, workers: [], extra: 1 })).toBe("extra is not a WorkerList field");
  });

  it("names the first problem", () => {
    const body = { total: 2, counts: { running: 0, idle: 0, error: 0, offline: 2 }, workers: [validRow(), { ...validRow(), last_seen: NaN }] };
    expect(workerListProblem(body)).toBe("workers[1].last_seen is not a finite number or null");
  });
});
