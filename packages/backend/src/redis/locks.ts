// Locks (fleet:lock:<name>) over Redis: the LocksBackend part of the contract.
import { randomBytes } from "node:crypto";
import { keys } from "../keys";
import type { LocksBackend, LockSummary } from "../types";
import { sleep, toPx } from "../shared";
import { callScript } from "./connection";
import { scanKeys, ttlMsOf, type RedisContext } from "./context";
import { asNumber } from "./replies";

export function redisLocks(ctx: RedisContext): LocksBackend {
  return {
    async lockAcquire(name: string, holdSeconds: number, waitSeconds: number): Promise<string | null> {
      const key = keys.lock(name);
      const token = randomBytes(16).toString("hex");
      const deadline = performance.now() + Math.max(0, waitSeconds) * 1000;
      let backoff = 50;
      for (;;) {
        const ok = await ctx.run((r) => r.set(key, token, "PX", toPx(Math.max(1, holdSeconds)), "NX"));
        if (ok === "OK") return token;
        const left = deadline - performance.now();
        if (left <= 0) return null;
        await sleep(Math.min(backoff, left));
        backoff = Math.min(backoff * 2, 500);
      }
    },

    async lockRelease(name: string, token: string): Promise<boolean> {
      return ctx.run(async (r) => asNumber(await callScript(r, "lockRelease", [keys.lock(name)], [token])) > 0);
    },

    async lockExtend(name: string, token: string, holdSeconds: number): Promise<boolean> {
      const ms = String(Math.max(1, Math.round(holdSeconds * 1000)));
      return ctx.run(async (r) => asNumber(await callScript(r, "lockExtend", [keys.lock(name)], [token, ms])) > 0);
    },

    async lockList(): Promise<LockSummary[]> {
      return ctx.run(async (r) => {
        const found = await scanKeys(r, "fleet:lock:*");
        if (found.length === 0) return [];
        const p = r.pipeline();
        for (const k of found) p.pttl(k);
        const res = await ctx.conn.exec(p);
        const out: LockSummary[] = [];
        found.forEach((k, i) => {
          const [err, pttl] = res[i]!;
          if (err || asNumber(pttl) === -2) return;
          out.push({ name: k.slice("fleet:lock:".length), ttlMs: ttlMsOf(pttl) });
        });
        return out;
      });
    },

    async lockSummaries(names: string[]): Promise<LockSummary[]> {
      if (names.length === 0) return [];
      return ctx.run(async (r) => {
        const p = r.pipeline();
        for (const n of names) p.pttl(keys.lock(n));
        const res = await ctx.conn.exec(p);
        const out: LockSummary[] = [];
        names.forEach((name, i) => {
          const [err, pttl] = res[i]!;
          if (err || asNumber(pttl) === -2) return;
          out.push({ name, ttlMs: ttlMsOf(pttl) });
        });
        return out;
      });
    },

    async lockForceRelease(name: string): Promise<boolean> {
      return ctx.run(async (r) => (await r.del(keys.lock(name))) > 0);
    },
  };
}
