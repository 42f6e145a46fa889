// A queue's dead letters in memory: the DeadLettersBackend part of the contract.

import { sha1Hex } from "../codec";
import { keys } from "../keys";
import type { DeadLettersBackend, BytesLike, DeadLetterMatch, DeadLetterSelector, RequeueOptions } from "../types";
import { withAttemptsReset } from "../task-body";
import { dlqByRef } from "../shared";
import type { MemoryContext } from "./context";

export function memoryDeadLetters(ctx: MemoryContext): DeadLettersBackend {
  const { raw } = ctx;
  const api: DeadLettersBackend = {
    async queueDead(name: string, body: BytesLike): Promise<void> {
      raw.rpush(keys.queueDead(name), body);
    },

    async dlqPeek(name: string, n: number): Promise<Buffer[]> {
      return n > 0 ? raw.lrange(keys.queueDead(name), 0, n - 1) : [];
    },

    async dlqPop(name: string, n: number): Promise<Buffer[]> {
      const out: Buffer[] = [];
      for (let i = 0; i < n; i++) {
        const b = raw.lpop(keys.queueDead(name));
        if (!b) break;
        out.push(b);
      }
      return out;
    },

    async dlqLength(name: string): Promise<number> {
      return raw.llen(keys.queueDead(name));
    },

    async dlqClear(name: string): Promise<number> {
      const n = raw.llen(keys.queueDead(name));
      raw.del(keys.queueDead(name));
      return n;
    },

    async dlqRange(name: string, offset: number, limit: number): Promise<{ total: number; items: Buffer[] }> {
      const k = keys.queueDead(name);
      const items = limit > 0 ? raw.lrange(k, Math.max(0, offset), Math.max(0, offset) + limit - 1) : [];
      return { total: raw.llen(k), items };
    },

    async dlqLocate(name: string, refs: string[]): Promise<{ found: DeadLetterMatch[]; missing: string[] }> {
      const wanted = new Set(refs.map((r) => r.toLowerCase()));
      const found = new Map<string, DeadLetterMatch>();
      raw.lrange(keys.queueDead(name)).forEach((body, index) => {
        if (found.size === wanted.size) return;
        const ref = sha1Hex(body);
        if (wanted.has(ref) && !found.has(ref)) found.set(ref, { ref, body, index });
      });
      return { found: [...found.values()], missing: [...wanted].filter((r) => !found.has(r)) };
    },

    async dlqTake(name: string, found: DeadLetterMatch[], action: "requeue" | "delete", opts: RequeueOptions = {}): Promise<{ count: number; missing: string[] }> {
      const dead = keys.queueDead(name);
      let count = 0;
      const missing: string[] = [];
      // As on Redis: one body at a time, every copy of it compared byte for byte.
      for (const m of [...found].sort((a, b) => a.index - b.index)) {
        const all = raw.lrange(dead);
        const kept = all.filter((b) => !b.equals(m.body));
        const n = all.length - kept.length;
        if (n === 0) {
          missing.push(m.ref);
          continue;
        }
        raw.lreplace(dead, kept);
        if (action === "requeue") {
          const pushed = withAttemptsReset(m.body, opts);
          raw.rpush(keys.queue(name), ...Array.from({ length: n }, () => pushed));
        }
        count += n;
      }
      return { count, missing };
    },

    async dlqRequeue(name: string, which: DeadLetterSelector, opts: RequeueOptions = {}): Promise<{ requeued: number; missing: string[] }> {
      if ("all" in which) {
        const taken = raw.lrange(keys.queueDead(name));
        raw.del(keys.queueDead(name));
        if (taken.length) raw.rpush(keys.queue(name), ...taken.map((b) => withAttemptsReset(b, opts)));
        return { requeued: taken.length, missing: [] };
      }
      const { count, missing } = await dlqByRef(api, name, which.refs, "requeue", opts);
      return { requeued: count, missing };
    },

    async dlqDelete(name: string, which: DeadLetterSelector): Promise<{ deleted: number; missing: string[] }> {
      if ("all" in which) return { deleted: await api.dlqClear(name), missing: [] };
      const { count, missing } = await dlqByRef(api, name, which.refs, "delete");
      return { deleted: count, missing };
    },
  };
  return api;
}
