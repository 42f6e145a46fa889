// The console's worker error history (fleet:console:worker-errors:<type>|<id>) over Redis:
// the WorkerErrorsBackend part of the contract, pipelined per 1,000 workers.
import { toBuffer } from "../codec";
import { consoleKeys, keys } from "../keys";
import type { WorkerErrorsBackend, WorkerErrorWrite, WorkerRef } from "../types";
import { toPx } from "../shared";
import { isWrongTypeError, mapRedisError } from "./connection";
import type { RedisContext } from "./context";
import { asBufferArray } from "./replies";

export function redisWorkerErrors(ctx: RedisContext): WorkerErrorsBackend {
  return {
    async workerErrorsPush(writes: WorkerErrorWrite[], opts: { maxEntries: number; ttlSeconds: number }): Promise<void> {
      if (writes.length === 0) return;
      const ttl = String(toPx(opts.ttlSeconds));
      await ctx.run(async (r) => {
        const m = r.multi();
        for (const w of writes) {
          const key = consoleKeys.workerErrors(w.automationType, w.workerId);
          m.lpush(key, toBuffer(w.entry))
            .ltrim(key, 0, Math.max(1, opts.maxEntries) - 1)
            .pexpire(key, ttl);
        }
        // a history key of another type fails its LPUSH alone: that worker's entry is lost, not the others'
        for (const [err] of await ctx.conn.exec(m)) if (err && !isWrongTypeError(err)) throw mapRedisError(ctx.rawUrl, err);
      });
    },

    async workerErrorsRead(refs: WorkerRef[], limit: number): Promise<Buffer[][]> {
      if (refs.length === 0) return [];
      return ctx.run(async (r) => {
        const out: Buffer[][] = [];
        for (let i = 0; i < refs.length; i += 1000) {
          const p = r.pipeline();
          for (const ref of refs.slice(i, i + 1000)) p.lrangeBuffer(consoleKeys.workerErrors(ref.automationType, ref.workerId), 0, Math.max(1, limit) - 1);
          for (const [err, v] of await ctx.conn.exec(p)) {
            if (err && !isWrongTypeError(err)) throw mapRedisError(ctx.rawUrl, err);
            out.push(err ? [] : asBufferArray(v));
          }
        }
        return out;
      });
    },

    async workersLastError(refs: WorkerRef[]): Promise<Array<string | null>> {
      if (refs.length === 0) return [];
      return ctx.run(async (r) => {
        const out: Array<string | null> = [];
        for (let i = 0; i < refs.length; i += 1000) {
          const p = r.pipeline();
          for (const ref of refs.slice(i, i + 1000)) p.hget(keys.worker(ref.automationType, ref.workerId, "state"), "last_error");
          for (const [err, v] of await ctx.conn.exec(p)) {
            if (err && !isWrongTypeError(err)) throw mapRedisError(ctx.rawUrl, err);
            out.push(!err && typeof v === "string" && v !== "" ? v : null);
          }
        }
        return out;
      });
    },
  };
}
