// The worker list's bulk actions over Redis (issue 14; the WorkerBulkBackend part of the
// contract): workersState and workersRemoveOffline, whole-fleet reads and writes, batched (a
// pipeline of 1000 HMGETs per round trip; one removal script per 100 workers, every call sent at once).
import type { Redis } from "ioredis";

import { keys, WORKER_ALL_INDEX, WORKER_FIELDS } from "../keys";
import type { OfflineRemoval, WorkerBulkBackend, WorkerRef, WorkerStateEntry } from "../types";
import { workerStateEntryFromRaw } from "../worker-state";
import { callScript, isWrongTypeError } from "./connection";
import type { RedisContext } from "./context";
import { asNumber } from "./replies";

/** Workers per pipelined round trip of workersState. */
export const STATE_READ_CHUNK = 1000;
/** Workers per call of workers-remove-offline-n.lua (7 keys each). */
export const REMOVE_CHUNK = 100;

const STATE_FIELDS = ["state", "last_seen", "last_error"] as const;

export async function readWorkersState(r: Redis, refs: WorkerRef[]): Promise<WorkerStateEntry[]> {
  const chunks: Array<Promise<WorkerStateEntry[]>> = [];
  for (let start = 0; start < refs.length; start += STATE_READ_CHUNK) {
    const slice = refs.slice(start, start + STATE_READ_CHUNK);
    const p = r.pipeline();
    for (const ref of slice) p.hmgetBuffer(keys.worker(ref.automationType, ref.workerId, "state"), ...STATE_FIELDS);
    chunks.push(
      p.exec().then((replies) =>
        slice.map((ref, i) => {
          const [err, values] = replies?.[i] ?? [new Error("no reply"), null];
          if (err) {
            if (isWrongTypeError(err)) return workerStateEntryFromRaw(ref, null);
            throw err;
          }
          const state: Record<string, Buffer> = {};
          (values as Array<Buffer | null>).forEach((v, j) => {
            if (v !== null) state[STATE_FIELDS[j]!] = v;
          });
          return workerStateEntryFromRaw(ref, state);
        }),
      ),
    );
  }
  return (await Promise.all(chunks)).flat();
}

export async function removeOfflineWorkers(r: Redis, refs: WorkerRef[], cutoff: number): Promise<OfflineRemoval[]> {
  if (!Number.isFinite(cutoff)) throw new RangeError(`cutoff must be a finite number of seconds, got ${cutoff}`);
  const calls: Array<Promise<OfflineRemoval[]>> = [];
  for (let start = 0; start < refs.length; start += REMOVE_CHUNK) {
    const slice = refs.slice(start, start + REMOVE_CHUNK);
    const k: string[] = [WORKER_ALL_INDEX];
    const a: string[] = [String(cutoff)];
    for (const { automationType: t, workerId: id } of slice) {
      k.push(keys.workerTypeIndex(t), ...WORKER_FIELDS.map((f) => keys.worker(t, id, f)));
      a.push(id, keys.workerAllMember(t, id));
    }
    calls.push(
      (callScript(r, "workersRemoveOffline", k, a) as Promise<unknown[]>).then((res) =>
        slice.map((_, i) => {
          const v = asNumber(res[i]);
          return v === 1 ? "removed" : v === -1 ? "online" : "absent";
        }),
      ),
    );
  }
  return (await Promise.all(calls)).flat();
}

export function redisWorkerBulk(ctx: RedisContext): WorkerBulkBackend {
  return {
    async workersState(refs: WorkerRef[]): Promise<WorkerStateEntry[]> {
      if (refs.length === 0) return [];
      return ctx.run((r) => readWorkersState(r, refs));
    },

    async workersRemoveOffline(refs: WorkerRef[], cutoff: number): Promise<OfflineRemoval[]> {
      if (refs.length === 0) return [];
      return ctx.run((r) => removeOfflineWorkers(r, refs, cutoff));
    },
  };
}
