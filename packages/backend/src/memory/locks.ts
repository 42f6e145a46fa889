// Locks (fleet:lock:<name>) in memory: the LocksBackend part of the contract.
import { randomBytes } from "node:crypto";
import { keys } from "../keys";
import type { LocksBackend, LockSummary } from "../types";
import { sleep } from "../shared";
import type { MemoryContext } from "./context";

export function memoryLocks(ctx: MemoryContext): LocksBackend {
  const { raw } = ctx;
  return {
    async lockAcquire(name: string, holdSeconds: number, waitSeconds: number): Promise<string | null> {
      const token = randomBytes(16).toString("hex");
      const deadline = Date.now() + Math.max(0, waitSeconds) * 1000;
      let backoffMs = 50;
      for (;;) {
        if (raw.set(keys.lock(name), token, { nx: true, ttlMs: Math.max(1, holdSeconds) * 1000 })) return token;
        const left = deadline - Date.now();
        if (left <= 0 || ctx.isClosed()) return null;
        await sleep(Math.min(backoffMs, left));
        backoffMs = Math.min(backoffMs * 2, 500);
      }
    },

    async lockRelease(name: string, token: string): Promise<boolean> {
      const k = keys.lock(name);
      const cur = raw.type(k) === "string" ? raw.get(k) : null;
      if (cur === null || !cur.equals(Buffer.from(token))) return false;
      return raw.del(k) > 0;
    },

    async lockExtend(name: string, token: string, holdSeconds: number): Promise<boolean> {
      const k = keys.lock(name);
      const cur = raw.type(k) === "string" ? raw.get(k) : null;
      if (cur === null || !cur.equals(Buffer.from(token))) return false;
      return raw.expire(k, Math.max(1, Math.round(holdSeconds * 1000)));
    },

    async lockList(): Promise<LockSummary[]> {
      const prefix = keys.lock("");
      return raw.keysWithPrefix(prefix).map((k) => {
        const pttl = raw.pttl(k);
        return { name: k.slice(prefix.length), ttlMs: pttl >= 0 ? pttl : null };
      });
    },

    async lockSummaries(names: string[]): Promise<LockSummary[]> {
      const out: LockSummary[] = [];
      for (const name of names) {
        const pttl = raw.pttl(keys.lock(name));
        if (pttl !== -2) out.push({ name, ttlMs: pttl >= 0 ? pttl : null });
      }
      return out;
    },

    async lockForceRelease(name: string): Promise<boolean> {
      return raw.del(keys.lock(name)) > 0;
    },
  };
}
