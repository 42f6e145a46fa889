// The worker list's bulk actions in memory (the WorkerBulkBackend part of the contract):
// workersState and workersRemoveOffline over the in-memory key space, with
// the Redis implementation's rules (src/redis/worker-bulk.ts, src/lua/workers-remove-offline-n.lua).
import { keys, WORKER_ALL_INDEX, WORKER_FIELDS } from "../keys";
import type { OfflineRemoval, WorkerBulkBackend, WorkerRef, WorkerStateEntry } from "../types";
import { workerStateEntryFromRaw } from "../worker-state";
import type { MemoryContext } from "./context";
import type { MemoryStore } from "./store";

export function readWorkersState(raw: MemoryStore, refs: WorkerRef[]): WorkerStateEntry[] {
  return refs.map((ref) => {
    const state = raw.peek(keys.worker(ref.automationType, ref.workerId, "state"));
    if (state === undefined) return workerStateEntryFromRaw(ref, {});
    if (state.type !== "hash") return workerStateEntryFromRaw(ref, null);
    const fields: Record<string, Buffer> = {};
    for (const f of ["state", "last_seen", "last_error"]) {
      const v = state.value.get(f);
      if (v !== undefined) fields[f] = v;
    }
    return workerStateEntryFromRaw(ref, fields);
  });
}

/** As the Lua script reads last_seen: a decimal number (Lua's tonumber), NaN never. */
function seenAt(raw: MemoryStore, ref: WorkerRef): number | null {
  const state = raw.peek(keys.worker(ref.automationType, ref.workerId, "state"));
  if (state?.type !== "hash") return null;
  const v = state.value.get("last_seen");
  if (v === undefined) return null;
  const text = v.toString("latin1").trim();
  if (!/^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/.test(text) && !/^[-+]?(?:inf|infinity)$/i.test(text)) return null;
  const t = Number(/inf/i.test(text) ? (text.startsWith("-") ? -Infinity : Infinity) : text);
  return Number.isNaN(t) ? null : t;
}

export function removeOfflineWorkers(raw: MemoryStore, refs: WorkerRef[], cutoff: number): OfflineRemoval[] {
  if (!Number.isFinite(cutoff)) throw new RangeError(`cutoff must be a finite number of seconds, got ${cutoff}`);
  return refs.map((ref) => {
    const { automationType: t, workerId: id } = ref;
    const seen = seenAt(raw, ref);
    if (seen !== null && seen >= cutoff) return "online";
    const typeIndex = raw.peek(keys.workerTypeIndex(t));
    const allIndex = raw.peek(WORKER_ALL_INDEX);
    let removed = 0;
    if (typeIndex?.type === "set") removed += raw.srem(keys.workerTypeIndex(t), id);
    if (allIndex?.type === "set") removed += raw.srem(WORKER_ALL_INDEX, keys.workerAllMember(t, id));
    removed += raw.del(...WORKER_FIELDS.map((f) => keys.worker(t, id, f)));
    return removed > 0 ? "removed" : "absent";
  });
}

export function memoryWorkerBulk(ctx: MemoryContext): WorkerBulkBackend {
  return {
    async workersState(refs: WorkerRef[]): Promise<WorkerStateEntry[]> {
      return readWorkersState(ctx.raw, refs);
    },

    async workersRemoveOffline(refs: WorkerRef[], cutoff: number): Promise<OfflineRemoval[]> {
      return removeOfflineWorkers(ctx.raw, refs, cutoff);
    },
  };
}
