// The console's worker error history (fleet:console:worker-errors:<type>|<id>) in memory:
// the WorkerErrorsBackend part of the contract.

import { consoleKeys, keys } from "../keys";
import type { WorkerErrorsBackend, WorkerErrorWrite, WorkerRef } from "../types";
import type { MemoryContext } from "./context";

export function memoryWorkerErrors(ctx: MemoryContext): WorkerErrorsBackend {
  const { raw } = ctx;
  return {
    async workerErrorsPush(writes: WorkerErrorWrite[], opts: { maxEntries: number; ttlSeconds: number }): Promise<void> {
      for (const w of writes) {
        const key = consoleKeys.workerErrors(w.automationType, w.workerId);
        if (raw.type(key) !== "none" && raw.type(key) !== "list") continue; // as Redis: that LPUSH fails alone
        raw.lpush(key, w.entry);
        raw.ltrim(key, 0, Math.max(1, opts.maxEntries) - 1);
        raw.expire(key, Math.max(1, Math.round(opts.ttlSeconds * 1000)));
      }
    },

    async workerErrorsRead(refs: WorkerRef[], limit: number): Promise<Buffer[][]> {
      return refs.map((ref) => {
        const key = consoleKeys.workerErrors(ref.automationType, ref.workerId);
        return raw.type(key) === "list" ? raw.lrange(key, 0, Math.max(1, limit) - 1) : [];
      });
    },

    async workersLastError(refs: WorkerRef[]): Promise<Array<string | null>> {
      return refs.map((ref) => {
        const state = raw.peek(keys.worker(ref.automationType, ref.workerId, "state"));
        const v = state?.type === "hash" ? state.value.get("last_error") : undefined;
        return v !== undefined && v.length > 0 ? v.toString("utf8") : null;
      });
    },
  };
}
