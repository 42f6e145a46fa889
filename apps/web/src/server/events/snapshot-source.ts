// Where the change-detection loop gets its changes from. Inline: read and diff in this
// thread (the memory backend, tests). Thread: a worker thread with its own Redis
// connection reads and diffs, and only the changes cross over, so decoding a large
// fleet every second never delays the fan-out of bus frames in the request thread.
import type { Backend } from "@fleet/backend";

import { ChangeDetector, WorkerReads, readSnapshot, type DetectedChange, type KnownNames } from "./change-detector";

export interface SnapshotSource {
  /** Where snapshots are read right now. */
  readonly kind: "inline" | "thread";
  /** Reads a snapshot of the named things and returns what changed since the previous one (nothing the first time). */
  poll(now: number, names: KnownNames): Promise<DetectedChange[]>;
  close(): Promise<void>;
}

export class InlineSnapshotSource implements SnapshotSource {
  readonly kind = "inline" as const;
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
