// The console's audit trail (fleet:console:audit, newest first) in memory: the AuditBackend
// part of the contract, the same steps as audit-replace-1.lua and audit-refusal-1.lua.

import { toBuffer } from "../codec";
import { AUDIT_LIST, REFUSAL_COUNTER_KEEP_MS, consoleKeys } from "../keys";
import { auditChangesSteps, type AuditBackend, type BytesLike, type RefusalSlot } from "../types";
import type { MemoryStore } from "./store";
import type { MemoryContext } from "./context";

/** Prepends one entry to the audit trail, capped (sessionPut writes its entry through this too). */
export function appendAudit(raw: MemoryStore, entry: BytesLike, maxEntries: number): void {
  raw.lpush(AUDIT_LIST, entry);
  if (maxEntries > 0) raw.ltrim(AUDIT_LIST, 0, maxEntries - 1);
}

export function memoryAudit(ctx: MemoryContext): AuditBackend {
  const { raw } = ctx;
  const api: AuditBackend = {
    async auditAppend(entry: BytesLike, maxEntries: number): Promise<void> {
      appendAudit(raw, entry, maxEntries);
    },

    async auditRange(offset: number, limit: number): Promise<{ total: number; items: Buffer[] }> {
      const items = limit > 0 ? raw.lrange(AUDIT_LIST, Math.max(0, offset), Math.max(0, offset) + limit - 1) : [];
      return { total: raw.llen(AUDIT_LIST), items };
    },

    async auditReplace(old: BytesLike, entry: BytesLike | null, maxEntries: number): Promise<boolean> {
      const needle = toBuffer(old);
      const list = raw.lrange(AUDIT_LIST);
      const i = list.findIndex((e) => e.equals(needle));
      if (i >= 0) {
        if (entry === null) list.splice(i, 1);
        else list[i] = Buffer.from(toBuffer(entry));
        raw.lreplace(AUDIT_LIST, list);
        return true;
      }
      if (entry !== null) await api.auditAppend(entry, maxEntries);
      return false;
    },

    async auditChangesPut(id: string, items: BytesLike[], ttlSeconds: number): Promise<void> {
      const key = consoleKeys.auditChanges(id);
      raw.del(key);
      for (const step of auditChangesSteps(items.map((i) => Buffer.from(toBuffer(i))))) {
        raw.rpush(key, ...step);
        raw.expire(key, Math.max(1, Math.round(ttlSeconds)) * 1000);
      }
    },

    async auditChangesRange(id: string, offset: number, limit: number): Promise<{ total: number; items: Buffer[] } | null> {
      const key = consoleKeys.auditChanges(id);
      const total = raw.llen(key);
      if (total === 0) return null;
      const from = Math.max(0, offset);
      return { total, items: limit > 0 ? raw.lrange(key, from, from + limit - 1) : [] };
    },

    async auditRefusalSlot(actor: string, limit: number, windowSeconds: number, nowMs = Date.now()): Promise<RefusalSlot> {
      const key = consoleKeys.auditRefusals(actor);
      const windowMs = Math.max(1, Math.round(windowSeconds * 1000));
      const startText = raw.hget(key, "start");
      const start = startText === null ? null : Number(startText.toString());
      if (start === null || !Number.isFinite(start) || nowMs >= start + windowMs) {
        const n = Number(raw.hget(key, "n")?.toString() ?? "0") || 0;
        const before = start === null || !Number.isFinite(start) ? 0 : Math.max(0, n - limit);
        raw.del(key);
        raw.hset(key, { start: String(Math.round(nowMs)), n: "1" });
        raw.expire(key, REFUSAL_COUNTER_KEEP_MS);
        return { decision: "record", suppressedBefore: before, windowStartMs: start ?? 0 };
      }
      const n = (Number(raw.hget(key, "n")?.toString() ?? "0") || 0) + 1;
      raw.hset(key, { n: String(n) });
      raw.expire(key, REFUSAL_COUNTER_KEEP_MS);
      const decision = n <= limit ? "record" : n === limit + 1 ? "marker" : "suppress";
      return { decision, suppressedBefore: 0, windowStartMs: start };
    },
  };
  return api;
}
