// The state-hash read (Backend.workersState), decoded by both implementations alike and by
// the very code that decodes full records, so a field is null or corrupt exactly when
// workersGet's would be.
import { workerRecordFromRaw } from "./codec";
import type { WorkerRef, WorkerStateEntry } from "./types";

/** `state`: the hash's fields (empty = key absent); null when the key holds another type. */
export function workerStateEntryFromRaw(ref: WorkerRef, state: Record<string, Buffer> | null): WorkerStateEntry {
  const rec = workerRecordFromRaw(ref.automationType, ref.workerId, {
    registered: false,
    hardware: null,
    config: null,
    gen: null,
    state: state ?? {},
    stats: null,
    historyLen: 0,
  });
  const entry: WorkerStateEntry = {
    automationType: ref.automationType,
    workerId: ref.workerId,
    state: rec.state,
    lastSeen: rec.lastSeen,
    lastError: rec.lastError,
    corrupt: rec.corrupt,
  };
  if (state === null) entry.corrupt.push("state");
  return entry;
}
