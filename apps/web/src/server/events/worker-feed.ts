// The worker changes the live-events loop found, handed to the watch's worker error recorder
// in the same process (../watch/worker-errors.ts), so that the fleet is not read twice over:
// with a tab open, the loop already reads every worker within ceil(workers / 1000) ticks and
// recomputes every status each tick; the recorder reading all 10,000 workers again every 10 s
// was a third of what the console cost Redis (`pnpm bench:scale`, hub section).
//
// A feed is trusted only over an unbroken stretch: an epoch begins once the loop has its
// baseline (the first snapshot of a run, or of a new snapshot reader), and ends with anything
// that can lose a change (the loop stopping, a failed or timed-out read, a reader started
// afresh); changes nobody takes are dropped past a bound, which starts a new epoch. The recorder reads the fleet itself
// at the first tick of every epoch; between such reads, the changes of the epoch it read in
// are all it needs.
import type { WorkersChange } from "./change-detector";

/** What the event hub tells the feed. */
export interface WorkerFeedSink {
  /** The loop has a baseline as of now: later changes are pushed, earlier ones were not. */
  begin(): void;
  /** A change found against that baseline. */
  push(change: WorkersChange): void;
  /** A change may have been lost (or the loop stopped): the epoch ends. */
  gap(): void;
}

/** What the recorder reads of it. */
export interface WorkerFeedReader {
  /** The epoch in progress, or null when none is (no loop, or a gap since). */
  epoch(): number | null;
  /** Every change pushed since the last take, oldest first; empties the feed. */
  take(): WorkersChange[];
}

/** Changes held for a reader that does not take them (this process is not the watch's leader). */
export const WORKER_FEED_MAX_CHANGES = 1000;

export class WorkerChangeFeed implements WorkerFeedSink, WorkerFeedReader {
  private current: number | null = null;
  private epochs = 0;
  private queue: WorkersChange[] = [];

  constructor(private readonly maxChanges = WORKER_FEED_MAX_CHANGES) {}

  begin(): void {
    this.current = ++this.epochs;
    this.queue = [];
  }

  push(change: WorkersChange): void {
    if (this.current === null) return;
    if (this.queue.length >= this.maxChanges) {
      // Nobody takes them (this process is not the leader): drop them and start a new epoch
      // from here, so that a reader reads the fleet itself before it trusts the feed again.
      this.begin();
    }
    this.queue.push(change);
  }

  gap(): void {
    this.current = null;
    this.queue = [];
  }

  epoch(): number | null {
    return this.current;
  }

  take(): WorkersChange[] {
    const out = this.queue;
    this.queue = [];
    return out;
  }
}

const holder = globalThis as typeof globalThis & { __fleetWorkerFeed?: WorkerChangeFeed };

/** The feed of this process: the process-wide hub writes it, the watch reads it. */
export function processWorkerFeed(): WorkerChangeFeed {
  holder.__fleetWorkerFeed ??= new WorkerChangeFeed();
  return holder.__fleetWorkerFeed;
}
