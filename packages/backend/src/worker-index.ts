// The light worker read (Backend.workersIndex), decoded by both implementations alike.
import { workerRecordFromRaw } from "./codec";
import type { WorkerIndexEntry, WorkerRef } from "./types";

/** Raw values behind one index entry (null = key absent). */
export interface WorkerIndexRaw {
  registered: boolean;
  /** Undefined when the hostname was not asked for. */
  hardware: Buffer | null | undefined;
  /** The state hash's fields (`last_error` only needs to be there when it is); empty object = key absent. */
  state: Record<string, Buffer>;
}

export function workerIndexEntryFromRaw(ref: WorkerRef, raw: WorkerIndexRaw): WorkerIndexEntry {
  // Decoded by the very code that decodes full records, so that a field is null or corrupt
  // exactly when workersGet's would be; last_error is not part of the entry.
  const rec = workerRecordFromRaw(ref.automationType, ref.workerId, {
    registered: raw.registered,
    hardware: raw.hardware ?? null,
    config: null,
    gen: null,
    state: raw.state,
    stats: null,
    historyLen: 0,
  });
  const h = rec.hardware?.hostname;
  return {
    automationType: ref.automationType,
    workerId: ref.workerId,
    registered: rec.registered,
    state: rec.state,
    lastSeen: rec.lastSeen,
    hostname: typeof h === "string" ? h : null,
    corrupt: rec.corrupt.filter((f) => f !== "last_error"),
  };
}
