// Messages between the hub and its snapshot worker thread.
import type { DetectedChange, KnownNames } from "./change-detector";

export interface SnapshotWorkerData {
  backendUrl: string;
  offlineAfterSeconds: number;
  /** The thread's own backend's worker cache (FLEET_WORKER_CACHE_MB); absent: the backend's default. */
  workerCacheBytes?: number;
}

export type ToSnapshotWorker = { kind: "poll"; seq: number; now: number; names: KnownNames };

export type FromSnapshotWorker = { kind: "result"; seq: number; changes: DetectedChange[] } | { kind: "error"; seq: number; message: string };
