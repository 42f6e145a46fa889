// The console's sessions and sign-in throttling over Redis (the SessionsBackend part of the
// contract): session-put-3.lua, session-delete-user-n.lua, signin-reserve-2.lua, signin-settle-2.lua.
import { toBuffer } from "../codec";
import { AUDIT_LIST, consoleKeys } from "../keys";
import type { SessionsBackend, BytesLike, AuditWrite, SignInPolicy, SignInReservation } from "../types";
import { toPx } from "../shared";
import { callScript } from "./connection";
import { EMPTY, type RedisContext } from "./context";
import { asNumber } from "./replies";

/** Session ids per script call when a user's sessions are ended. */
const SESSION_BATCH = 500;

export function redisSessions(ctx: RedisContext): SessionsBackend {
  return {
    async sessionPut(id: string, user: string, record: BytesLike, ttlSeconds: number, opts: { audit?: AuditWrite } = {}): Promise<void> {
      const keys3 = [AUDIT_LIST, consoleKeys.session(id), consoleKeys.userSessions(user)];
      const args = [
        toBuffer(record),
        String(toPx(ttlSeconds)),
        id,
        String(Date.now()),
        opts.audit ? toBuffer(opts.audit.entry) : EMPTY,
        String(Math.max(0, opts.audit?.maxEntries ?? 0)),
      ];
      await ctx.run((r) => callScript(r, "sessionPut", keys3, args));
    },

    async sessionGet(id: string): Promise<Buffer | null> {
      return ctx.run((r) => r.getBuffer(consoleKeys.session(id)));
    },

    async sessionDelete(id: string): Promise<boolean> {
      return ctx.run(async (r) => (await r.del(consoleKeys.session(id))) > 0);
    },

    async sessionDeleteForUser(user: string): Promise<number> {
      const index = consoleKeys.userSessions(user);
      return ctx.run(async (r) => {
        let live = 0;
        // Sessions made while this runs land in the index too: read it again until empty
        // (bounded: a user signing in faster than this loop is not a case to wait for).
        for (let round = 0; round < 10; round++) {
          const ids = await r.zrange(index, "0", String(SESSION_BATCH - 1));
          if (ids.length === 0) break;
          live += asNumber(await callScript(r, "sessionDeleteUser", [index, ...ids.map((id) => consoleKeys.session(id))], ids));
        }
        return live;
      });
    },

    async signInReserve(pairId: string, addressId: string, policy: SignInPolicy, nowMs = Date.now()): Promise<SignInReservation> {
      const args = [
        String(Math.round(nowMs)),
        String(policy.pairFree),
        String(policy.pairForgetMs),
        String(policy.addressFree),
        String(policy.addressWindowMs),
        String(policy.baseDelayMs),
        String(policy.maxDelayMs),
      ];
      return ctx.run(async (r) => {
        const [ok, wait] = (await callScript(r, "signinReserve", [consoleKeys.signInPair(pairId), consoleKeys.signInAddress(addressId)], args)) as unknown[];
        return asNumber(ok) === 1 ? { allowed: true } : { allowed: false, waitMs: Math.max(1, asNumber(wait)) };
      });
    },

    async signInSettle(pairId: string, addressId: string, outcome: "success" | "refund", policy: SignInPolicy): Promise<void> {
      const args = [outcome, String(policy.pairFree), String(policy.addressFree)];
      await ctx.run((r) => callScript(r, "signinSettle", [consoleKeys.signInPair(pairId), consoleKeys.signInAddress(addressId)], args));
    },
  };
}
