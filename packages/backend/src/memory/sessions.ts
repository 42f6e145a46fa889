// The console's sessions and sign-in throttling in memory (the SessionsBackend part of the
// contract): the same steps as session-put-3.lua, signin-reserve-2.lua and signin-settle-2.lua.

import { consoleKeys } from "../keys";
import type { SessionsBackend, BytesLike, AuditWrite, SignInPolicy, SignInReservation } from "../types";
import { appendAudit } from "./audit";
import type { MemoryContext } from "./context";

export function memorySessions(ctx: MemoryContext): SessionsBackend {
  const { raw } = ctx;
  return {
    async sessionPut(id: string, user: string, record: BytesLike, ttlSeconds: number, opts: { audit?: AuditWrite } = {}): Promise<void> {
      // the audit entry first: a wrong-typed trail throws before the session exists
      if (opts.audit) appendAudit(raw, opts.audit.entry, opts.audit.maxEntries);
      const ttlMs = Math.max(1, Math.round(ttlSeconds * 1000));
      const now = Date.now();
      raw.set(consoleKeys.session(id), record, { ttlMs });
      const index = consoleKeys.userSessions(user);
      raw.zremRangeByScore(index, Number.NEGATIVE_INFINITY, now);
      raw.zadd(index, now + ttlMs, id);
      if (raw.pttl(index) < ttlMs) raw.expire(index, ttlMs);
    },

    async sessionGet(id: string): Promise<Buffer | null> {
      return raw.get(consoleKeys.session(id));
    },

    async sessionDelete(id: string): Promise<boolean> {
      return raw.del(consoleKeys.session(id)) > 0;
    },

    async sessionDeleteForUser(user: string): Promise<number> {
      const index = consoleKeys.userSessions(user);
      const ids = raw.zrange(index).map((m) => m.member.toString("utf8"));
      const live = raw.del(...ids.map((id) => consoleKeys.session(id)));
      raw.del(index);
      return live;
    },

    async signInReserve(pairId: string, addressId: string, policy: SignInPolicy, nowMs = Date.now()): Promise<SignInReservation> {
      const pair = consoleKeys.signInPair(pairId);
      const address = consoleKeys.signInAddress(addressId);
      const waiting = (key: string) => {
        const until = Number(raw.hget(key, "until")?.toString() ?? "0") || 0;
        return until > nowMs ? until - nowMs : 0;
      };
      const wait = Math.max(waiting(pair), waiting(address));
      if (wait > 0) return { allowed: false, waitMs: Math.round(wait) };
      const count = (key: string, free: number, ttlMs: number, sliding: boolean) => {
        const n = (Number(raw.hget(key, "n")?.toString() ?? "0") || 0) + 1;
        raw.hset(key, { n: String(n) });
        if (n >= free) {
          const delay = Math.min(policy.baseDelayMs * 2 ** Math.min(n - free, 40), policy.maxDelayMs);
          raw.hset(key, { until: String(Math.round(nowMs + delay)) });
        }
        if (sliding || raw.pttl(key) < 0) raw.expire(key, ttlMs);
      };
      count(pair, policy.pairFree, policy.pairForgetMs, true);
      count(address, policy.addressFree, policy.addressWindowMs, false);
      return { allowed: true };
    },

    async signInSettle(pairId: string, addressId: string, outcome: "success" | "refund", policy: SignInPolicy): Promise<void> {
      const refund = (key: string, free: number) => {
        if (!raw.exists(key)) return;
        const n = (Number(raw.hget(key, "n")?.toString() ?? "0") || 0) - 1;
        if (n <= 0) raw.del(key);
        else {
          raw.hset(key, { n: String(n) });
          if (n < free) raw.hdel(key, "until");
        }
      };
      const pair = consoleKeys.signInPair(pairId);
      if (outcome === "success") raw.del(pair);
      else refund(pair, policy.pairFree);
      refund(consoleKeys.signInAddress(addressId), policy.addressFree);
    },
  };
}
