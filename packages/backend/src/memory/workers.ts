// Workers in memory (the WorkersBackend part of the contract): registration, config with its
// generation, state, stats and their history, and the reads, decoded as on Redis.

import { configFromRaw, genFromRaw, encodeUnixFloat, statsFrameFromRaw, workerRecordFromRaw, parseJsonBytes, isJsonObject } from "../codec";
import { CorruptDataError, StaleGenerationError } from "../errors";
import { WORKER_ALL_INDEX, WORKER_FIELDS, keys, parseWorkerAllMember } from "../keys";
import { pyJsonBytes } from "../pyjson";
import type { WorkersBackend, ConfigWrite, JsonObject, StatsFrame, WorkerIndexEntry, WorkerRecord, WorkerRef, WorkerRow } from "../types";
import { workerIndexEntryFromRaw } from "../worker-index";
import { cmp } from "../shared";
import { stringOrUnreadable, type MemoryContext } from "./context";

/** 0 when absent or empty (as Python reads it), null when the stored value is not an integer. */
function currentGen(ctx: MemoryContext, automationType: string, workerId: string): number | null {
  return genFromRaw(ctx.raw.get(keys.worker(automationType, workerId, "gen")));
}

/** Checks every write before any is applied, so a failure writes nothing. */
function applyConfigWrites(ctx: MemoryContext, writes: ConfigWrite[]): number[] {
  for (const w of writes) {
    const cur = currentGen(ctx, w.automationType, w.workerId);
    if (w.expectedGen !== undefined && cur !== w.expectedGen) throw new StaleGenerationError(w.expectedGen, cur);
    // INCR would fail on a non-integer gen; fail before writing anything instead.
    if (cur === null) throw new CorruptDataError(`config generation of ${w.automationType}/${w.workerId} is not an integer`);
  }
  return writes.map((w) => {
    ctx.raw.set(keys.worker(w.automationType, w.workerId, "config"), pyJsonBytes(w.config));
    const genKey = keys.worker(w.automationType, w.workerId, "gen");
    // an empty gen reads as 0, but INCR refuses it: write the 1 INCR would have made
    if (ctx.raw.get(genKey)?.length === 0) {
      ctx.raw.set(genKey, "1");
      return 1;
    }
    return ctx.raw.incrBy(genKey, 1);
  });
}

function readWorker(ctx: MemoryContext, ref: WorkerRef): WorkerRecord {
  const { automationType: t, workerId: id } = ref;
  // One lookup per key: the console reads thousands of workers per page.
  const index = ctx.raw.peek(keys.workerTypeIndex(t));
  const state = ctx.raw.peek(keys.worker(t, id, "state"));
  const history = ctx.raw.peek(keys.worker(t, id, "stats:history"));
  const rec = workerRecordFromRaw(t, id, {
    registered: index?.type === "set" && index.value.has(id),
    hardware: stringOrUnreadable(ctx.raw.peek(keys.worker(t, id, "hardware"))),
    config: stringOrUnreadable(ctx.raw.peek(keys.worker(t, id, "config"))),
    gen: stringOrUnreadable(ctx.raw.peek(keys.worker(t, id, "gen"))),
    state: state?.type === "hash" ? Object.fromEntries(state.value) : {},
    stats: stringOrUnreadable(ctx.raw.peek(keys.worker(t, id, "stats"))),
    historyLen: history?.type === "zset" ? history.value.size : 0,
  });
  // a state key that is not a hash is unreadable, not absent
  if (state !== undefined && state.type !== "hash") rec.corrupt.push("state");
  return rec;
}

export function memoryWorkers(ctx: MemoryContext): WorkersBackend {
  const { raw } = ctx;
  return {
    async workerRegister(automationType: string, workerId: string, hardware: JsonObject): Promise<void> {
      raw.set(keys.worker(automationType, workerId, "hardware"), pyJsonBytes(hardware));
      raw.sadd(keys.workerTypeIndex(automationType), workerId);
      raw.sadd(WORKER_ALL_INDEX, keys.workerAllMember(automationType, workerId));
      raw.set(keys.worker(automationType, workerId, "gen"), "0", { nx: true });
      raw.set(keys.worker(automationType, workerId, "config"), "{}", { nx: true });
    },

    async workerGetConfig(automationType: string, workerId: string): Promise<{ config: JsonObject; gen: number }> {
      const rawCfg = raw.get(keys.worker(automationType, workerId, "config"));
      const gen = currentGen(ctx, automationType, workerId);
      const config = configFromRaw(rawCfg);
      if (config === null) throw new CorruptDataError(`config of ${automationType}/${workerId} is not a JSON object`);
      if (gen === null) throw new CorruptDataError(`config generation of ${automationType}/${workerId} is not an integer`);
      return { config, gen };
    },

    async workerSetConfig(automationType: string, workerId: string, config: JsonObject, opts?: { expectedGen?: number }): Promise<{ config: JsonObject; gen: number }> {
      const [gen] = applyConfigWrites(ctx, [{ automationType, workerId, config, expectedGen: opts?.expectedGen }]);
      return { config, gen: gen! };
    },

    async workerSetConfigMany(writes: ConfigWrite[]): Promise<Array<{ automationType: string; workerId: string; gen: number }>> {
      const gens = applyConfigWrites(ctx, writes);
      return writes.map((w, i) => ({ automationType: w.automationType, workerId: w.workerId, gen: gens[i]! }));
    },

    async workerSetState(automationType: string, workerId: string, state: string, lastError: string | null, lastSeen: number): Promise<void> {
      raw.hset(keys.worker(automationType, workerId, "state"), {
        state,
        last_seen: encodeUnixFloat(lastSeen),
        last_error: lastError ?? "",
      });
    },

    async workerSetStats(automationType: string, workerId: string, stats: JsonObject): Promise<void> {
      raw.set(keys.worker(automationType, workerId, "stats"), pyJsonBytes(stats));
    },

    async workerStatsPush(automationType: string, workerId: string, ts: number, frame: JsonObject, opts?: { maxEntries?: number }): Promise<void> {
      const k = keys.worker(automationType, workerId, "stats:history");
      raw.zadd(k, ts, pyJsonBytes(frame));
      const max = opts?.maxEntries ?? 240;
      if (max > 0) raw.zkeepNewest(k, max);
    },

    async workerStatsHistory(automationType: string, workerId: string, opts?: { since?: number; limit?: number }): Promise<JsonObject[]> {
      const limit = opts?.limit ?? 240;
      const entries = raw.zrangeByScore(keys.worker(automationType, workerId, "stats:history"), opts?.since ?? 0, Infinity);
      const out: JsonObject[] = [];
      for (const e of entries.slice(0, Math.max(0, limit))) {
        const parsed = parseJsonBytes(e.member);
        if (parsed.ok && isJsonObject(parsed.value)) out.push(parsed.value);
      }
      return out;
    },

    async workerStatsFrames(automationType: string, workerId: string, opts: { since?: number; limit: number }): Promise<StatsFrame[]> {
      if (opts.limit <= 0) return [];
      const since = opts.since ?? -Infinity;
      const entries = raw.zrange(keys.worker(automationType, workerId, "stats:history")).filter((e) => e.score > since);
      return entries.slice(-opts.limit).map((e) => statsFrameFromRaw(e.member, e.score));
    },

    async workerGet(automationType: string, workerId: string): Promise<WorkerRecord | null> {
      if (!raw.sismember(keys.workerTypeIndex(automationType), workerId)) return null;
      return readWorker(ctx, { automationType, workerId });
    },

    async workerCount(): Promise<number> {
      return raw.type(WORKER_ALL_INDEX) === "set" ? raw.smembers(WORKER_ALL_INDEX).length : 0;
    },

    async workerList(automationType?: string): Promise<WorkerRef[]> {
      if (automationType === undefined) {
        return raw
          .smembers(WORKER_ALL_INDEX)
          .map(parseWorkerAllMember)
          .filter((r): r is WorkerRef => r !== null)
          .sort((a, b) => cmp(a.automationType, b.automationType) || cmp(a.workerId, b.workerId));
      }
      return raw.smembers(keys.workerTypeIndex(automationType)).map((workerId) => ({ automationType, workerId }));
    },

    async workersGet(refs: WorkerRef[]): Promise<WorkerRecord[]> {
      return refs.map((r) => readWorker(ctx, r));
    },

    async workersRows(refs: WorkerRef[]): Promise<WorkerRow[]> {
      return refs.map((r) => {
        const { historyLen: _, ...row } = readWorker(ctx, r);
        return row;
      });
    },

    async workersIndex(refs: WorkerRef[], opts: { hostname?: boolean; lastError?: boolean } = {}): Promise<WorkerIndexEntry[]> {
      return refs.map((ref) => {
        const { automationType: t, workerId: id } = ref;
        const index = raw.peek(keys.workerTypeIndex(t));
        const state = raw.peek(keys.worker(t, id, "state"));
        const entry = workerIndexEntryFromRaw(ref, {
          registered: index?.type === "set" && index.value.has(id),
          hardware: opts.hostname ? stringOrUnreadable(raw.peek(keys.worker(t, id, "hardware"))) : undefined,
          state: state?.type === "hash" ? Object.fromEntries(state.value) : {},
        });
        // as in readWorker: a state key that is not a hash is unreadable, not absent
        if (state !== undefined && state.type !== "hash") entry.corrupt.push("state");
        if (opts.lastError) {
          const v = state?.type === "hash" ? state.value.get("last_error") : undefined;
          entry.lastError = v !== undefined && v.length > 0 ? v.toString("utf8") : null;
        }
        return entry;
      });
    },

    /** Unlike Python, also clears a half-registered worker (keys or one index entry left): it is an admin clean-up. */
    async workerRemove(automationType: string, workerId: string): Promise<boolean> {
      const removed =
        raw.srem(keys.workerTypeIndex(automationType), workerId) +
        raw.srem(WORKER_ALL_INDEX, keys.workerAllMember(automationType, workerId)) +
        raw.del(...WORKER_FIELDS.map((f) => keys.worker(automationType, workerId, f)));
      return removed > 0;
    },
  };
}
