// Where the change-detection loop gets its changes from. Thread (Redis, ./snapshot-thread.ts):
// a worker thread with its own Redis connection reads and diffs, and only the changes cross
// over, so decoding a large fleet every second, and collecting its garbage, never delays
// the fan-out of bus frames or an HTTP answer in the request thread. Inline: read and diff
// in this thread: the memory backend (it lives in this heap), tests, and the fallback when
// no worker thread can start. `pnpm bench:snapshot` measures both on 10,000 workers with big
// stats bodies: reading inline, even in slices of 250 workers with a yield to the event loop
// between them (the other defence, removed in issue 17.4), held the request thread up to a
// second at a time (p99); the thread, about 20 ms.
import type { Backend } from "@fleet/backend";

import { ChangeDetector, WorkerReads, readSnapshot, type DetectedChange, type KnownNames } from "./change-detector";

export interface SnapshotSource {
  /** Where snapshots are read right now. */
  readonly kind: "inline" | "thread";
  /**
   * Counts the baselines this source has started from: it moves when changes are found
   * against a new one (a worker thread started again, the fall back to inline reads), whose
   * first poll finds nothing, so what changed meanwhile is never reported.
   */
  readonly baselines: number;
  /** Reads a snapshot of the named things and returns what changed since the previous one (nothing the first time). */
  poll(now: number, names: KnownNames): Promise<DetectedChange[]>;
  close(): Promise<void>;
}

export class InlineSnapshotSource implements SnapshotSource {
  readonly kind = "inline" as const;
  readonly baselines = 1;
  private readonly detector = new ChangeDetector();
  private readonly workers = new WorkerReads();

  constructor(
    private readonly getBackend: () => Promise<Backend>,
    private readonly offlineAfterSeconds: number,
  ) {}

  async poll(now: number, names: KnownNames): Promise<DetectedChange[]> {
    const backend = await this.getBackend();
    return this.detector.apply(await readSnapshot(backend, now, this.offlineAfterSeconds, names, this.workers));
  }

  async close(): Promise<void> {
    this.detector.reset();
  }
}
