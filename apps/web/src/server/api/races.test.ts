// Config writes racing one another through the routes, many rounds, on both backends
// (issue 18.3): N PATCHes on one generation (If-Match: exactly one wins, the rest 412),
// N PATCHes without If-Match (no lost update: every 200's change is kept, every 409's is
// not), and the fleet-wide rollout against single-worker writes (its 409 path: all or
// nothing). Requests are issued in a random order, each after a random number of event-loop
// turns, so that every side wins some rounds; each round is accounted for in full.
//
// Its Redis database is its own (@fleet/backend/testing/redis-dbs).
import { testRedisDb } from "@fleet/backend/testing/redis-dbs";
import { describe, expect, it } from "vitest";

import * as rollout from "@/app/api/v1/automations/[type]/config/route";
import * as config from "@/app/api/v1/workers/[type]/[id]/config/route";

import { describeRoutes, type CallResult, type Harness } from "./test/harness";

const N = 8;

/** A random number of event-loop turns (0-7): jitter that shapes the race, not a wait for anything. */
async function jitter(): Promise<void> {
  for (let i = Math.floor(Math.random() * 8); i > 0; i--) await new Promise((r) => setImmediate(r));
}

function shuffled<T>(xs: T[]): T[] {
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** Runs every call at once, issued in a random order after some jitter; results in the order given. */
async function race(calls: Array<() => Promise<CallResult>>): Promise<CallResult[]> {
  const results = new Array<Promise<CallResult>>(calls.length);
  for (const i of shuffled(calls.map((_, k) => k))) results[i] = jitter().then(calls[i]!);
  return Promise.all(results);
}

async function stored(h: Harness, type: string, id: string): Promise<{ config: Record<string, unknown>; gen: number }> {
  const [cfg, gen] = await Promise.all([h.plant.get(`wkr:${type}:${id}:config`), h.plant.get(`wkr:${type}:${id}:gen`)]);
  return { config: JSON.parse(cfg!.toString()) as Record<string, unknown>, gen: Number(gen!.toString()) };
}

function racesSuite(h: Harness): void {
  describe("config writes racing through the routes", () => {
    it("N PATCHes with the same If-Match: exactly one 200, the others 412, the winner's change stored (40 rounds)", async () => {
      await h.backend.workerRegister("racer", "w", {});
      for (let gen = 0; gen < 40; gen++) {
        const res = await race(
          Array.from({ length: N }, (_, i) => () => h.call(config.PATCH, "PATCH", "/workers/racer/w/config", { body: { writer: i, gen }, headers: { "If-Match": `"${gen}"` } })),
        );
        const won = res.flatMap((r, i) => (r.status === 200 ? [i] : []));
        expect(won, `generation ${gen}: ${res.map((r) => r.status).join(",")}`).toHaveLength(1);
        for (const r of res) if (r.status !== 200) expect([r.status, r.json.error.code]).toEqual([412, "precondition_failed"]);
        const winner = res[won[0]!]!;
        expect(winner.headers.get("etag")).toBe(`"${gen + 1}"`);
        expect(await stored(h, "racer", "w")).toEqual({ config: { writer: won[0], gen }, gen: gen + 1 });
      }
    });

    it("N PATCHes without If-Match: each answers 200 and is kept, or 409 and is not; never a lost update (40 rounds)", async () => {
      await h.backend.workerRegister("racer", "w", {});
      let conflicts = 0;
      for (let round = 0; round < 40; round++) {
        const before = await stored(h, "racer", "w");
        const res = await race(Array.from({ length: N }, (_, i) => () => h.call(config.PATCH, "PATCH", "/workers/racer/w/config", { body: { [`r${round}w${i}`]: i } })));
        for (const r of res) if (r.status !== 200) expect([r.status, r.json.error.code], JSON.stringify(r.json)).toEqual([409, "conflict"]);
        const ok = res.flatMap((r, i) => (r.status === 200 ? [i] : []));
        conflicts += N - ok.length;
        expect(ok.length, `round ${round}`).toBeGreaterThan(0);
        const after = await stored(h, "racer", "w");
        const mine = Object.keys(after.config)
          .filter((k) => k.startsWith(`r${round}w`))
          .sort();
        expect(mine, `round ${round}: the keys of exactly the writes that answered 200`).toEqual(ok.map((i) => `r${round}w${i}`).sort());
        expect(after.gen).toBe(before.gen + ok.length);
        // the earlier rounds' keys are all still there
        for (const k of Object.keys(before.config)) expect(after.config).toHaveProperty(k);
      }
      // the race was real: writes collided
      expect(conflicts).toBeGreaterThan(0);
    });

    it("a rollout racing single-worker PATCHes: 200 and every worker has it, or 409 and none has it; every single 200 is kept", async () => {
      const ids = ["a", "b", "c"];
      for (const id of ids) await h.backend.workerRegister("fleet", id, {});
      const seen = { rollout200: 0, rollout409: 0 };
      let round = 0;
      for (; round < 400 && (round < 30 || seen.rollout200 === 0 || seen.rollout409 === 0); round++) {
        const before = await Promise.all(ids.map((id) => stored(h, "fleet", id)));
        const singles = Array.from({ length: N - 1 }, (_, i) => ({ id: ids[(i + round) % ids.length]!, key: `r${round}s${i}` }));
        const [roll, ...res] = await race([
          () => h.call(rollout.PATCH, "PATCH", "/automations/fleet/config", { body: { [`r${round}rollout`]: true } }),
          ...singles.map((s) => () => h.call(config.PATCH, "PATCH", `/workers/fleet/${s.id}/config`, { body: { [s.key]: true } })),
        ]);
        expect([200, 409], JSON.stringify(roll!.json)).toContain(roll!.status);
        if (roll!.status === 200) {
          seen.rollout200++;
          expect(roll!.json.workers.map((w: { worker_id: string }) => w.worker_id)).toEqual(ids);
        } else {
          seen.rollout409++;
          expect(roll!.json.error.code).toBe("conflict");
        }
        const after = await Promise.all(ids.map((id) => stored(h, "fleet", id)));
        ids.forEach((id, k) => {
          const has = (key: string) => Object.hasOwn(after[k]!.config, key);
          // the rollout: on every worker or on none
          expect(has(`r${round}rollout`), `round ${round}, worker ${id}: rollout answered ${roll!.status}`).toBe(roll!.status === 200);
          const mine = singles.map((s, i) => ({ ...s, status: res[i]!.status })).filter((s) => s.id === id);
          for (const s of mine) {
            expect([200, 409]).toContain(s.status);
            expect(has(s.key), `round ${round}, worker ${id}: ${s.key} answered ${s.status}`).toBe(s.status === 200);
          }
          const wins = mine.filter((s) => s.status === 200).length + (roll!.status === 200 ? 1 : 0);
          expect(after[k]!.gen, `round ${round}, worker ${id}`).toBe(before[k]!.gen + wins);
        });
      }
      // both outcomes of the rollout happened: its 409 path ran, and so did its success
      expect(seen.rollout409, `after ${round} rounds`).toBeGreaterThan(0);
      expect(seen.rollout200, `after ${round} rounds`).toBeGreaterThan(0);
    });
  });
}

describeRoutes(testRedisDb("apps/web/src/server/api/races.test.ts"), [racesSuite]);
