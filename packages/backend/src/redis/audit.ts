// The console's audit trail (fleet:console:audit, newest first) over Redis: the AuditBackend part of the contract.
import { toBuffer } from "../codec";
import { AUDIT_LIST, consoleKeys, REFUSAL_COUNTER_KEEP_MS } from "../keys";
import { auditChangesSteps, type AuditBackend, type BytesLike, type RefusalSlot } from "../types";
import { callScript } from "./connection";
import { EMPTY, type RedisContext } from "./context";
import { asBufferArray, asNumber } from "./replies";

function refusalSlot(decision: number, before: number, start: number): RefusalSlot {
  return {
    decision: decision === 1 ? "record" : decision === 2 ? "marker" : "suppress",
    suppressedBefore: before,
    windowStartMs: start,
  };
}

export function redisAudit(ctx: RedisContext): AuditBackend {
  return {
    async auditAppend(entry: BytesLike, maxEntries: number): Promise<void> {
      await ctx.run(async (r) => {
        const m = r.multi().lpush(AUDIT_LIST, toBuffer(entry));
        if (maxEntries > 0) m.ltrim(AUDIT_LIST, 0, maxEntries - 1);
        await ctx.conn.execValues(m);
      });
    },

    async auditRange(offset: number, limit: number): Promise<{ total: number; items: Buffer[] }> {
      return ctx.run(async (r) => {
        if (limit <= 0) return { total: await r.llen(AUDIT_LIST), items: [] };
        const [total, items] = await ctx.conn.execValues(
          r
            .pipeline()
            .llen(AUDIT_LIST)
            .lrangeBuffer(AUDIT_LIST, offset, offset + limit - 1),
        );
        return { total: asNumber(total), items: asBufferArray(items) };
      });
    },

    async auditReplace(old: BytesLike, entry: BytesLike | null, maxEntries: number): Promise<boolean> {
      const args = [toBuffer(old), entry === null ? EMPTY : toBuffer(entry), String(Math.max(0, maxEntries))];
      return ctx.run(async (r) => asNumber(await callScript(r, "auditReplace", [AUDIT_LIST], args)) === 1);
    },

    async auditChangesPut(id: string, items: BytesLike[], ttlSeconds: number): Promise<void> {
      const key = consoleKeys.auditChanges(id);
      const ttl = Math.max(1, Math.round(ttlSeconds));
      await ctx.run(async (r) => {
        // one short MULTI per step, each renewing the TTL: a process that dies part way leaves
        // a list no entry names, gone with its TTL
        const steps = auditChangesSteps(items.map(toBuffer));
        if (steps.length === 0) {
          await r.del(key);
          return;
        }
        for (let i = 0; i < steps.length; i++) {
          const m = r.multi();
          if (i === 0) m.del(key);
          m.rpush(key, ...steps[i]!).expire(key, ttl);
          await ctx.conn.execValues(m);
        }
      });
    },

    async auditChangesRange(id: string, offset: number, limit: number): Promise<{ total: number; items: Buffer[] } | null> {
      const key = consoleKeys.auditChanges(id);
      const from = Math.max(0, offset);
      return ctx.run(async (r) => {
        // a limit of 0 (or less) asks for the count alone: LLEN, never an LRANGE to the end
        // of a list of up to 10,000 changes
        const pipe = r.pipeline().llen(key);
        if (limit > 0) pipe.lrangeBuffer(key, from, from + limit - 1);
        const [total, items] = await ctx.conn.execValues(pipe);
        const n = asNumber(total);
        if (n === 0) return null;
        return { total: n, items: limit > 0 ? asBufferArray(items) : [] };
      });
    },

    async auditRefusalSlot(actor: string, limit: number, windowSeconds: number, nowMs = Date.now()): Promise<RefusalSlot> {
      const windowMs = Math.max(1, Math.round(windowSeconds * 1000));
      const args = [String(Math.round(nowMs)), String(limit), String(windowMs), String(REFUSAL_COUNTER_KEEP_MS)];
      return ctx.run(async (r) => {
        const [decision, before, start] = (await callScript(r, "auditRefusal", [consoleKeys.auditRefusals(actor)], args)) as unknown[];
        return refusalSlot(asNumber(decision), asNumber(before), asNumber(start));
      });
    },
  };
}
